/* symcut tests — the one Check runner: one suite per part. */
#include <stdlib.h>

#include <check.h>

#include "tests/testutil.h"

Suite *symint_suite(void);
Suite *guards_suite(void);
Suite *graph_suite(void);
Suite *read_suite(void);
Suite *kernels_suite(void);
Suite *shapes_suite(void);
Suite *interp_suite(void);
Suite *partition_suite(void);
Suite *budget_suite(void);
Suite *badinput_suite(void);
Suite *autodiff_suite(void);
Suite *oom_suite(void);
Suite *props_suite(void);
Suite *gradcheck_suite(void);
Suite *frontier_suite(void);
Suite *cost_suite(void);
Suite *peak_suite(void);
Suite *ops2_suite(void);
Suite *report_suite(void);
Suite *hints_suite(void);
Suite *builder_names_suite(void);
Suite *prims_suite(void);
Suite *gemm_suite(void);
Suite *attention_suite(void);
Suite *write_stream_suite(void);
Suite *shape_memo_suite(void);

int main(void)
{
    SRunner *sr;
    int failed;

    sc_test_seed(); /* print the seed before anything runs */
    sr = srunner_create(symint_suite());
    srunner_add_suite(sr, guards_suite());
    srunner_add_suite(sr, graph_suite());
    srunner_add_suite(sr, read_suite());
    srunner_add_suite(sr, kernels_suite());
    srunner_add_suite(sr, shapes_suite());
    srunner_add_suite(sr, interp_suite());
    srunner_add_suite(sr, partition_suite());
    srunner_add_suite(sr, budget_suite());
    srunner_add_suite(sr, badinput_suite());
    srunner_add_suite(sr, autodiff_suite());
    srunner_add_suite(sr, oom_suite());
    srunner_add_suite(sr, props_suite());
    srunner_add_suite(sr, gradcheck_suite());
    srunner_add_suite(sr, frontier_suite());
    srunner_add_suite(sr, cost_suite());
    srunner_add_suite(sr, peak_suite());
    srunner_add_suite(sr, ops2_suite());
    srunner_add_suite(sr, report_suite());
    srunner_add_suite(sr, hints_suite());
    srunner_add_suite(sr, builder_names_suite());
    srunner_add_suite(sr, prims_suite());
    srunner_add_suite(sr, gemm_suite());
    srunner_add_suite(sr, attention_suite());
    srunner_add_suite(sr, write_stream_suite());
    srunner_add_suite(sr, shape_memo_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
