   0 ========= COMPUTE-SANITIZER
   0 
   0 running 7 tests
   1 test device_near_far_loop_errors_and_reuse ... ok
   1 test every_real_matrix ... seed 1795870591401646163
   1 karate.mtx weights 1..=1000: source 0
   2 karate.mtx weights 1..=1000: 34 vertices, 1 sources, deltas [128] and the default, 2 schedules: 0.80 s
   2 karate.mtx weights 1..=1000: source 0
   3 karate.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 1.38 s
   3 west0067.mtx weights 1..=1000: source 0
   5 west0067.mtx weights 1..=1000: 67 vertices, 1 sources, deltas [256] and the default, 2 schedules: 1.40 s
   5 west0067.mtx weights 1..=1000: source 0
   6 west0067.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 1.70 s
   6 2 matrices in 5.4 s
   6 ok
  12 test near_far_loop_errors_and_reuse ... ok
  12 test road_kronecker_and_grid ... seed 1795870602777907526
  13 road 200 weights 1..=1000: source 0
  34 road 200 weights 1..=1000: 200 vertices, 1 sources, deltas [2048] and the default, 12 schedules: 21.42 s
  34 road 200 weights 1..=1000: source 0
  35 road 200 weights 1..=1000: device loop, 9 schedules, 18 runs: 0.82 s
  35 ok
  35 test road_kronecker_and_grid_grid ... seed 1795870625474298034
  35 grid 12x8 weights 1..=1000: source 0
  38 grid 12x8 weights 1..=1000: 96 vertices, 1 sources, deltas [2147483647] and the default, 12 schedules: 2.77 s
  38 grid 12x8 weights 1..=1000: source 0
  38 grid 12x8 weights 1..=1000: device loop, 9 schedules, 18 runs: 0.41 s
  38 ok
  38 test road_kronecker_and_grid_kronecker ... seed 1795870628997392157
  39 kronecker 9 weights 1..=1000: source 0
  41 kronecker 9 weights 1..=1000: 512 vertices, 1 sources, deltas [256] and the default, 12 schedules: 2.44 s
  41 kronecker 9 weights 1..=1000: source 0
  42 kronecker 9 weights 1..=1000: device loop, 9 schedules, 18 runs: 0.45 s
  42 ok
  42 test unreachable_vertices_gaps_zero_weights_and_a_single_vertex ... two components: source 0
  45 two components: source 8
  46 two components: 10 vertices, 2 sources, deltas [1, 1000] and the default, 12 schedules: 4.09 s
  46 two components: source 0
  48 two components: source 8
  49 two components: device loop, 9 schedules, 54 runs: 2.83 s
  49 single vertex: source 0
  49 single vertex: 1 vertices, 1 sources, deltas [1] and the default, 12 schedules: 0.52 s
  49 single vertex: source 0
  50 single vertex: device loop, 9 schedules, 18 runs: 0.80 s
  50 star + path: source 0
  53 star + path: 1501 vertices, 1 sources, deltas [4] and the default, 12 schedules: 2.57 s
  53 star + path: source 0
  54 star + path: device loop, 9 schedules, 18 runs: 1.35 s
  54 ok
  54 
  54 test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 54.45s
  54 
  54 ========= ERROR SUMMARY: 0 errors
  54 (end: exit 0)
