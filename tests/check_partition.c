#include <check.h>
Suite *partition_suite(void);
Suite *partition_suite(void) { return suite_create("partition"); }
