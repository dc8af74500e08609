   0 ========= COMPUTE-SANITIZER
   0 
   0 running 7 tests
   8 test device_near_far_loop_errors_and_reuse ... ok
   9 test every_real_matrix ... seed 1795867507127559453
   9 karate.mtx weights 1..=1000: source 0
  10 karate.mtx weights 1..=1000: 34 vertices, 1 sources, deltas [128] and the default, 2 schedules: 1.03 s
  10 karate.mtx weights 1..=1000: source 0
  11 karate.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 1.67 s
  11 ldbc-directed-example.mtx weights 1..=1000: source 0
  16 ldbc-directed-example.mtx weights 1..=1000: 10 vertices, 1 sources, deltas [1] and the default, 12 schedules: 4.72 s
  16 ldbc-directed-example.mtx weights 1..=1000: source 0
  19 ldbc-directed-example.mtx weights 1..=1000: device loop, 9 schedules, 18 runs: 2.44 s
  19 west0067.mtx weights 1..=1000: source 0
  20 west0067.mtx weights 1..=1000: 67 vertices, 1 sources, deltas [256] and the default, 2 schedules: 1.46 s
  20 west0067.mtx weights 1..=1000: source 0
  22 west0067.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 2.11 s
  22 3 matrices in 13.5 s
  22 ok
  28 test near_far_loop_errors_and_reuse ... ok
  28 test road_kronecker_and_grid ... seed 1795867526421877815
  29 road 200 weights 1..=1000: source 0
  48 road 200 weights 1..=1000: 200 vertices, 1 sources, deltas [2048] and the default, 12 schedules: 19.81 s
  48 road 200 weights 1..=1000: source 0
  56 road 200 weights 1..=1000: device loop, 9 schedules, 18 runs: 7.27 s
  56 ok
  56 test road_kronecker_and_grid_grid ... seed 1795867554327568779
  56 grid 12x8 weights 1..=1000: source 0
  70 grid 12x8 weights 1..=1000: 96 vertices, 1 sources, deltas [2147483647] and the default, 12 schedules: 13.11 s
  70 grid 12x8 weights 1..=1000: source 0
  73 grid 12x8 weights 1..=1000: device loop, 9 schedules, 18 runs: 3.54 s
  73 ok
  73 test road_kronecker_and_grid_kronecker ... seed 1795867571794069054
  74 kronecker 9 weights 1..=1000: source 0
  88 kronecker 9 weights 1..=1000: 512 vertices, 1 sources, deltas [128] and the default, 12 schedules: 14.17 s
  88 kronecker 9 weights 1..=1000: source 0
  92 kronecker 9 weights 1..=1000: device loop, 9 schedules, 18 runs: 4.37 s
  93 ok
  93 test unreachable_vertices_gaps_zero_weights_and_a_single_vertex ... two components: source 0
  99 two components: source 8
 100 two components: 10 vertices, 2 sources, deltas [1, 1000] and the default, 12 schedules: 6.82 s
 100 two components: source 0
 102 two components: source 8
 104 two components: device loop, 9 schedules, 54 runs: 4.54 s
 104 single vertex: source 0
 105 single vertex: 1 vertices, 1 sources, deltas [1] and the default, 12 schedules: 0.88 s
 105 single vertex: source 0
 107 single vertex: device loop, 9 schedules, 18 runs: 1.34 s
 107 star + path: source 0
 110 star + path: 1501 vertices, 1 sources, deltas [4] and the default, 12 schedules: 2.89 s
 110 star + path: source 0
 112 star + path: device loop, 9 schedules, 18 runs: 2.23 s
 112 ok
 112 
 112 test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 112.14s
 112 
 112 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 112 (end: exit 0)
