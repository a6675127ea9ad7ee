# How long the slow tests took on a fresh 2-core machine (issue 39; seconds, `scripts/test.sh` on 2026-11-28),
# as CTest's COST: CTest starts the costliest tests first. A fresh build tree has no timings of its own
# (CTest keeps them in Testing/Temporary/CTestCostData.txt after a run), and declaration order left the
# longest tests (the Slurm sweep, the reproduction presets, the fuzzers' serial chain) for last, with one core
# idle at the end. Only an order: a stale figure costs nothing but a worse order.
set(FONE_TEST_COSTS
  slurm_sweep 222 test_reproduce 132 fuzz_metrics_short 106 fuzz_config_short 98 test_store_scale 74
  test_sweep 63 test_engine 61 test_safe_runs 56 test_bad_inputs 50 test_welcome 47 test_text_train 47
  test_kill_resume 40 fuzz_checkpoint_short 40 cli_reference_up_to_date 40 test_layout_1920x1080 38
  test_distributed_failures 38 test_layout_hidpi 34 test_layout 34 fuzz_safetensors_short 34
  fuzz_numbers_short 34 fuzz_serve_requests_short 29 fuzz_experiment_short 28 test_fourier 25
  test_workbench 23 test_analysis_views 22 test_distributed 21
  # Issue 44's, measured on the project's 2-core VM at load 5 to 9 (2026-11-29), not on a fresh machine:
  test_distributed_rendezvous 275 test_received_runs 40)

# Sets COST on the tests of the current folder that the table names (a deferred call at the folder's end:
# set_tests_properties reaches only the tests of its own folder).
function(fone_apply_test_costs)
  set(costs ${FONE_TEST_COSTS})
  list(LENGTH costs n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET costs ${i} name)
    list(GET costs ${j} seconds)
    if(TEST ${name})
      set_tests_properties(${name} PROPERTIES COST ${seconds})
    endif()
  endforeach()
endfunction()
