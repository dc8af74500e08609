   0 ========= COMPUTE-SANITIZER
   0 
   0 running 11 tests
  16 test device_loop_errors_limits_and_refusals ... ok
  46 test device_loop_push_walk_and_grids ... ok
  47 test device_queue_overflow_is_an_error ... ok
  48 test every_real_matrix ... seed 1795870486763472579
  48 karate.mtx: source 0
  67 west0067.mtx: source 0
  90 ok
  93 test frontier_loop_errors_and_reuse ... ok
  93 test grids_road_like ... seed 1795870531830670866
  93 grid 8x6 weights 1..=16: source 28
 122 ok
 123 test grids_road_like_path ... seed 1795870561023146018
 123 grid 1x16 weights 1..=7: source 8
 152 ok
 153 test grids_road_like_unit_weights ... seed 1795870591204219519
 153 grid 6x6 weights 1..=1: source 21
 168 ok
 169 test plain_and_checked_variants ... rmat 9, checked false: source 0
 185 rmat 9, checked true: source 0
 193 ok
 194 test rmat_scale_16 ... seed 1795870632470583319
 194 rmat 10: source 0
 210 ok
 211 test unreachable_vertices_single_vertex_self_loops_duplicates ... two components: source 0
 222 two components: source 8
 224 single vertex: source 0
 226 single vertex, self-loop: source 0
 227 self-loops and duplicates: source 0
 246 star + path: source 0
 255 ok
 255 
 255 test result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 255.73s
 255 
 255 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 255 (end: exit 0)
