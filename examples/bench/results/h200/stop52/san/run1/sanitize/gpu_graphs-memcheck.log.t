   0 ========= COMPUTE-SANITIZER
   0 
   0 running 11 tests
   2 test device_loop_errors_limits_and_refusals ... ok
   8 test device_loop_push_walk_and_grids ... ok
   8 test device_queue_overflow_is_an_error ... ok
   8 test every_real_matrix ... seed 1795867506986091005
   9 karate.mtx: source 0
  11 ldbc-directed-example.mtx: source 0
  14 west0067.mtx: source 0
  19 ok
  20 test frontier_loop_errors_and_reuse ... ok
  20 test grids_road_like ... seed 1795867518534684468
  20 grid 12x8 weights 1..=16: source 54
  23 ok
  23 test grids_road_like_path ... seed 1795867521822108663
  23 grid 1x24 weights 1..=7: source 12
  29 ok
  29 test grids_road_like_unit_weights ... seed 1795867527441653346
  29 grid 8x8 weights 1..=1: source 36
  36 ok
  36 test plain_and_checked_variants ... rmat 9, checked false: source 0
  40 rmat 9, checked true: source 0
  47 ok
  48 test rmat_scale_16 ... seed 1795867546027930853
  48 rmat 10: source 0
  53 ok
  53 test unreachable_vertices_single_vertex_self_loops_duplicates ... two components: source 0
  56 two components: source 8
  56 single vertex: source 0
  56 single vertex, self-loop: source 0
  56 self-loops and duplicates: source 0
  63 star + path: source 0
  66 ok
  66 
  66 test result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 66.64s
  66 
  67 ========= ERROR SUMMARY: 0 errors
  67 (end: exit 0)
