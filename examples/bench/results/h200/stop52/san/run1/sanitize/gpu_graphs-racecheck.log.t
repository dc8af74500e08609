   0 ========= COMPUTE-SANITIZER
   0 
   0 running 11 tests
  15 test device_loop_errors_limits_and_refusals ... ok
  40 test device_loop_push_walk_and_grids ... ok
  41 test device_queue_overflow_is_an_error ... ok
  42 test every_real_matrix ... seed 1795867540500739388
  42 karate.mtx: source 0
  54 ldbc-directed-example.mtx: source 0
  65 west0067.mtx: source 0
  83 ok
  85 test frontier_loop_errors_and_reuse ... ok
  86 test grids_road_like ... seed 1795867584227474161
  86 grid 12x8 weights 1..=16: source 54
 111 ok
 111 test grids_road_like_path ... seed 1795867609859046434
 111 grid 1x24 weights 1..=7: source 12
 138 ok
 138 test grids_road_like_unit_weights ... seed 1795867636766009733
 138 grid 8x8 weights 1..=1: source 36
 158 ok
 158 test plain_and_checked_variants ... rmat 9, checked false: source 0
 170 rmat 9, checked true: source 0
 174 ok
 174 test rmat_scale_16 ... seed 1795867672922812440
 174 rmat 10: source 0
 188 ok
 188 test unreachable_vertices_single_vertex_self_loops_duplicates ... two components: source 0
 198 two components: source 8
 200 single vertex: source 0
 202 single vertex, self-loop: source 0
 203 self-loops and duplicates: source 0
 219 star + path: source 0
 226 ok
 226 
 226 test result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 226.15s
 226 
 226 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 226 (end: exit 0)
