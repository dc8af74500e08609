   0 ========= COMPUTE-SANITIZER
   0 
   0 running 7 tests
   5 test device_near_far_loop_errors_and_reuse ... ok
   6 test every_real_matrix ... seed 1795867504052854751
   6 karate.mtx weights 1..=1000: source 0
   7 karate.mtx weights 1..=1000: 34 vertices, 1 sources, deltas [128] and the default, 2 schedules: 0.98 s
   7 karate.mtx weights 1..=1000: source 0
   8 karate.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 1.18 s
   8 ldbc-directed-example.mtx weights 1..=1000: source 0
  12 ldbc-directed-example.mtx weights 1..=1000: 10 vertices, 1 sources, deltas [1] and the default, 12 schedules: 4.06 s
  12 ldbc-directed-example.mtx weights 1..=1000: source 0
  14 ldbc-directed-example.mtx weights 1..=1000: device loop, 9 schedules, 18 runs: 1.79 s
  14 west0067.mtx weights 1..=1000: source 0
  15 west0067.mtx weights 1..=1000: 67 vertices, 1 sources, deltas [256] and the default, 2 schedules: 1.04 s
  15 west0067.mtx weights 1..=1000: source 0
  15 west0067.mtx weights 1..=1000: device loop, 5 schedules, 10 runs: 0.39 s
  15 3 matrices in 9.5 s
  15 ok
  16 test near_far_loop_errors_and_reuse ... ok
  16 test road_kronecker_and_grid ... seed 1795867514498184977
  16 road 200 weights 1..=1000: source 0
  36 road 200 weights 1..=1000: 200 vertices, 1 sources, deltas [2048] and the default, 12 schedules: 20.04 s
  36 road 200 weights 1..=1000: source 0
  42 road 200 weights 1..=1000: device loop, 9 schedules, 18 runs: 6.05 s
  42 ok
  42 test road_kronecker_and_grid_grid ... seed 1795867540961004793
  43 grid 12x8 weights 1..=1000: source 0
  54 grid 12x8 weights 1..=1000: 96 vertices, 1 sources, deltas [2147483647] and the default, 12 schedules: 11.48 s
  54 grid 12x8 weights 1..=1000: source 0
  58 grid 12x8 weights 1..=1000: device loop, 9 schedules, 18 runs: 3.43 s
  58 ok
  58 test road_kronecker_and_grid_kronecker ... seed 1795867556322256828
  58 kronecker 9 weights 1..=1000: source 0
  71 kronecker 9 weights 1..=1000: 512 vertices, 1 sources, deltas [256] and the default, 12 schedules: 12.86 s
  71 kronecker 9 weights 1..=1000: source 0
  75 kronecker 9 weights 1..=1000: device loop, 9 schedules, 18 runs: 3.99 s
  75 ok
  76 test unreachable_vertices_gaps_zero_weights_and_a_single_vertex ... two components: source 0
  82 two components: source 8
  83 two components: 10 vertices, 2 sources, deltas [1, 1000] and the default, 12 schedules: 7.34 s
  83 two components: source 0
  84 two components: source 8
  86 two components: device loop, 9 schedules, 54 runs: 2.67 s
  86 single vertex: source 0
  86 single vertex: 1 vertices, 1 sources, deltas [1] and the default, 12 schedules: 0.63 s
  86 single vertex: source 0
  87 single vertex: device loop, 9 schedules, 18 runs: 0.90 s
  87 star + path: source 0
  89 star + path: 1501 vertices, 1 sources, deltas [4] and the default, 12 schedules: 2.07 s
  89 star + path: source 0
  91 star + path: device loop, 9 schedules, 18 runs: 1.85 s
  91 ok
  91 
  91 test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 91.42s
  91 
  91 ========= ERROR SUMMARY: 0 errors
  91 (end: exit 0)
