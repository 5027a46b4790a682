// SPDX-License-Identifier: GPL-2.0
/*
 * guest_tests.h: a guest's test list as C. Define GUEST_TEST_LIST as the list's file name
 * ("kcmp_init_tests.h": one KCMPM_TEST(name) per line, beside the guest's source, which the
 * harness compiles with -iquote for that folder) and include this: it gives enum test_id
 * (T_<name> in the list's order, then NTESTS) and test_names[], the names the harness
 * requires in that order.
 */
#ifndef KCMPM_GUEST_TESTS_H
#define KCMPM_GUEST_TESTS_H

enum test_id {
#define KCMPM_TEST(name) T_##name,
#include GUEST_TEST_LIST
#undef KCMPM_TEST
	NTESTS
};

static const char *const test_names[] = {
#define KCMPM_TEST(name) #name,
#include GUEST_TEST_LIST
#undef KCMPM_TEST
};

#endif
