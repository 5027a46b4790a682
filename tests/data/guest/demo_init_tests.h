/* The tests demo_init runs, in order (a fixture for tests/unit/guest_test.c). */
KCMPM_TEST(kernel_identity)
KCMPM_TEST(demo_present)

KCMPM_TEST(demo_works)
