/* The tests membarrier_init runs, in this order; the harness requires exactly these results
 * from every boot, by count and name. One KCMPM_TEST per line. */
KCMPM_TEST(kernel_identity)
KCMPM_TEST(membarrier_present)
KCMPM_TEST(rseq_present)
KCMPM_TEST(membarrier_query_lists_the_commands)
KCMPM_TEST(membarrier_global)
KCMPM_TEST(membarrier_private_expedited_unregistered_eperm)
KCMPM_TEST(membarrier_register_private_expedited)
KCMPM_TEST(membarrier_private_expedited)
KCMPM_TEST(membarrier_einval_unknown_command)
KCMPM_TEST(membarrier_einval_flags)
