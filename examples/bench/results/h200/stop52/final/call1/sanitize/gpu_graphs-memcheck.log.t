   0 ========= COMPUTE-SANITIZER
   0 
   0 running 11 tests
   3 test device_loop_errors_limits_and_refusals ... ok
   4 test device_loop_push_walk_and_grids ... ok
   4 test device_queue_overflow_is_an_error ... ok
   5 test every_real_matrix ... seed 1795870698043337137
   5 karate.mtx: source 0
   5 west0067.mtx: source 0
   5 ok
   6 test frontier_loop_errors_and_reuse ... ok
   6 test grids_road_like ... seed 1795870699145461717
   6 grid 8x6 weights 1..=16: source 28
   6 ok
   6 test grids_road_like_path ... seed 1795870699784066664
   6 grid 1x16 weights 1..=7: source 8
   7 ok
   7 test grids_road_like_unit_weights ... seed 1795870700463031097
   7 grid 6x6 weights 1..=1: source 21
   8 ok
   8 test plain_and_checked_variants ... rmat 9, checked false: source 0
   8 rmat 9, checked true: source 0
   8 ok
   8 test rmat_scale_16 ... seed 1795870701730855000
   8 rmat 10: source 0
   9 ok
   9 test unreachable_vertices_single_vertex_self_loops_duplicates ... two components: source 0
   9 two components: source 8
   9 single vertex: source 0
   9 single vertex, self-loop: source 0
   9 self-loops and duplicates: source 0
   9 star + path: source 0
  10 ok
  10 
  10 test result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 9.24s
  10 
  10 ========= ERROR SUMMARY: 0 errors
  10 (end: exit 0)
