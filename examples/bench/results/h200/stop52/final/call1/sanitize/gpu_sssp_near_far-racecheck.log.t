   0 ========= COMPUTE-SANITIZER
   0 
   0 running 7 tests
   8 test device_near_far_loop_errors_and_reuse ... ok
   9 test every_real_matrix ... seed 1795870447715060582
   9 karate.mtx weights 1..=1000: source 0
  11 karate.mtx weights 1..=1000: 34 vertices, 1 sources, deltas [256] and the default, 2 schedules: 1.20 s
  11 karate.mtx weights 1..=1000: source 0
  12 karate.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 1.82 s
  12 west0067.mtx weights 1..=1000: source 0
  14 west0067.mtx weights 1..=1000: 67 vertices, 1 sources, deltas [256] and the default, 2 schedules: 1.40 s
  14 west0067.mtx weights 1..=1000: source 0
  16 west0067.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 2.11 s
  16 2 matrices in 6.6 s
  16 ok
  22 test near_far_loop_errors_and_reuse ... ok
  22 test road_kronecker_and_grid ... seed 1795870460739349201
  23 road 200 weights 1..=1000: source 0
  59 road 200 weights 1..=1000: 200 vertices, 1 sources, deltas [2048] and the default, 12 schedules: 36.14 s
  59 road 200 weights 1..=1000: source 0
  69 road 200 weights 1..=1000: device loop, 9 schedules, 18 runs: 9.69 s
  69 ok
  69 test road_kronecker_and_grid_grid ... seed 1795870507602313550
  70 grid 12x8 weights 1..=1000: source 0
  89 grid 12x8 weights 1..=1000: 96 vertices, 1 sources, deltas [2147483647] and the default, 12 schedules: 19.26 s
  89 grid 12x8 weights 1..=1000: source 0
  93 grid 12x8 weights 1..=1000: device loop, 9 schedules, 18 runs: 4.07 s
  94 ok
  94 test road_kronecker_and_grid_kronecker ... seed 1795870532008877433
  94 kronecker 9 weights 1..=1000: source 0
 117 kronecker 9 weights 1..=1000: 512 vertices, 1 sources, deltas [256] and the default, 12 schedules: 23.22 s
 117 kronecker 9 weights 1..=1000: source 0
 122 kronecker 9 weights 1..=1000: device loop, 9 schedules, 18 runs: 5.02 s
 123 ok
 123 test unreachable_vertices_gaps_zero_weights_and_a_single_vertex ... two components: source 0
 133 two components: source 8
 135 two components: 10 vertices, 2 sources, deltas [1, 1000] and the default, 12 schedules: 11.30 s
 135 two components: source 0
 138 two components: source 8
 141 two components: device loop, 9 schedules, 54 runs: 5.74 s
 141 single vertex: source 0
 142 single vertex: 1 vertices, 1 sources, deltas [1] and the default, 12 schedules: 1.48 s
 142 single vertex: source 0
 144 single vertex: device loop, 9 schedules, 18 runs: 1.53 s
 144 star + path: source 0
 148 star + path: 1501 vertices, 1 sources, deltas [4] and the default, 12 schedules: 4.73 s
 148 star + path: source 0
 151 star + path: device loop, 9 schedules, 18 runs: 3.10 s
 152 ok
 152 
 152 test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 152.03s
 152 
 152 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 152 (end: exit 0)
