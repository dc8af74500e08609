   0 ========= COMPUTE-SANITIZER
   0 
   0 running 6 tests
   2 test every_real_matrix ... seed 1795867500122194795
   2 karate.mtx: source 0
  21 karate.mtx: 34 vertices, 156 edges, 1 sources: 19.77 s
  21 ldbc-directed-example.mtx: source 0
  26 ldbc-directed-example.mtx: 10 vertices, 17 edges, 1 sources: 4.08 s
  26 west0067.mtx: source 0
  28 west0067.mtx: 67 vertices, 294 edges, 1 sources: 2.84 s
  28 kernel / schedule                         passed / run  (3 matrices)
  28 bfs_do beamer/thread+thread               3 / 3
  28 bfs_do pull/thread+thread                 3 / 3
  28 bfs_do beamer/group2+group2               3 / 3
  28 bfs_do pull/group2+group2                 3 / 3
  28 bfs_do beamer/warp+warp                   3 / 3
  28 bfs_do pull/warp+warp                     3 / 3
  28 bfs_do beamer/group64+group64             3 / 3
  28 bfs_do pull/group64+group64               3 / 3
  28 bfs_do beamer/block+block                 3 / 3
  28 bfs_do pull/block+block                   3 / 3
  28 bfs_do beamer/mean_group+warp             3 / 3
  28 bfs_do pull/mean_group+warp               3 / 3
  28 bfs_do beamer/work_oriented+warp          3 / 3
  28 bfs_do pull/work_oriented+warp            3 / 3
  28 bfs_do beamer/merge_path+warp             3 / 3
  28 bfs_do pull/merge_path+warp               3 / 3
  28 bfs_do beamer/split+warp                  3 / 3
  28 bfs_do pull/split+warp                    3 / 3
  28 bfs_do beamer/hierarchical+hierarchical   3 / 3
  28 bfs_do pull/hierarchical+hierarchical     3 / 3
  28 bfs_do beamer/lrb+lrb                     3 / 3
  28 bfs_do pull/lrb+lrb                       3 / 3
  28 bfs_do beamer/auto+auto                   3 / 3
  28 bfs_do pull/auto+auto                     3 / 3
  28 bfs_do push/warp+warp                     3 / 3
  28 bfs_do beamer, small push/merge_path+warp 3 / 3
  28 bfs_do beamer, small push/auto+auto       3 / 3
  28 pagerank f32/thread                       3 / 3
  28 pagerank f32/group2                       3 / 3
  28 pagerank f32/warp                         3 / 3
  28 pagerank f32/group64                      3 / 3
  28 pagerank f32/block                        3 / 3
  28 pagerank f32/mean_group                   3 / 3
  28 pagerank f32/work_oriented                3 / 3
  28 pagerank f32/merge_path                   3 / 3
  28 pagerank f32/split                        3 / 3
  28 pagerank f32/hierarchical                 3 / 3
  28 pagerank f32/lrb                          3 / 3
  28 pagerank f32/auto                         3 / 3
  28 pagerank f32 L1 stop/warp                 3 / 3
  28 pagerank f64/thread                       3 / 3
  28 pagerank f64/group2                       3 / 3
  28 pagerank f64/warp                         3 / 3
  28 pagerank f64/group64                      3 / 3
  28 pagerank f64/block                        3 / 3
  28 pagerank f64/mean_group                   3 / 3
  28 pagerank f64/work_oriented                3 / 3
  28 pagerank f64/merge_path                   3 / 3
  28 pagerank f64/split                        3 / 3
  28 pagerank f64/hierarchical                 3 / 3
  28 pagerank f64/lrb                          3 / 3
  28 pagerank f64/auto                         3 / 3
  28 pagerank f64 L1 stop/warp                 3 / 3
  28 cc/thread                                 3 / 3
  28 cc/group2                                 3 / 3
  28 cc/warp                                   3 / 3
  28 cc/group64                                3 / 3
  28 cc/block                                  3 / 3
  28 cc/mean_group                             3 / 3
  28 cc/work_oriented                          3 / 3
  28 cc/merge_path                             3 / 3
  28 cc/split                                  3 / 3
  28 cc/hierarchical                           3 / 3
  28 cc/lrb                                    3 / 3
  28 cc/auto                                   3 / 3
  28 k-core/thread                             3 / 3
  28 k-core/group2                             3 / 3
  28 k-core/warp                               3 / 3
  28 k-core/group64                            3 / 3
  28 k-core/block                              3 / 3
  28 k-core/mean_group                         3 / 3
  28 k-core/work_oriented                      3 / 3
  28 k-core/merge_path                         3 / 3
  28 k-core/split                              3 / 3
  28 k-core/hierarchical                       3 / 3
  28 k-core/lrb                                3 / 3
  28 k-core/auto                               3 / 3
  28 tc/thread                                 3 / 3
  28 tc/group2                                 3 / 3
  28 tc/warp                                   3 / 3
  28 tc/group64                                3 / 3
  28 tc/block                                  3 / 3
  28 tc/mean_group                             3 / 3
  28 tc/work_oriented                          3 / 3
  28 tc/merge_path                             3 / 3
  28 tc/split                                  3 / 3
  28 tc/hierarchical                           3 / 3
  28 tc/lrb                                    3 / 3
  28 tc/auto                                   3 / 3
  29 ok
  29 test grids_and_a_road_network ... seed 1795867527048103086
  29 grid 24x14: source 180
  38 grid 24x14: 336 vertices, 1604 edges, 1 sources: 9.40 s
  38 kernel / schedule                         passed / run  (1 matrices)
  38 bfs_do beamer/thread+thread               1 / 1
  38 bfs_do pull/thread+thread                 1 / 1
  38 bfs_do beamer/group2+group2               1 / 1
  38 bfs_do pull/group2+group2                 1 / 1
  38 bfs_do beamer/warp+warp                   1 / 1
  38 bfs_do pull/warp+warp                     1 / 1
  38 bfs_do beamer/group64+group64             1 / 1
  38 bfs_do pull/group64+group64               1 / 1
  38 bfs_do beamer/block+block                 1 / 1
  38 bfs_do pull/block+block                   1 / 1
  38 bfs_do beamer/mean_group+warp             1 / 1
  38 bfs_do pull/mean_group+warp               1 / 1
  38 bfs_do beamer/work_oriented+warp          1 / 1
  38 bfs_do pull/work_oriented+warp            1 / 1
  38 bfs_do beamer/merge_path+warp             1 / 1
  38 bfs_do pull/merge_path+warp               1 / 1
  38 bfs_do beamer/split+warp                  1 / 1
  38 bfs_do pull/split+warp                    1 / 1
  38 bfs_do beamer/hierarchical+hierarchical   1 / 1
  38 bfs_do pull/hierarchical+hierarchical     1 / 1
  38 bfs_do beamer/lrb+lrb                     1 / 1
  38 bfs_do pull/lrb+lrb                       1 / 1
  38 bfs_do beamer/auto+auto                   1 / 1
  38 bfs_do pull/auto+auto                     1 / 1
  38 bfs_do push/warp+warp                     1 / 1
  38 bfs_do beamer, small push/merge_path+warp 1 / 1
  38 bfs_do beamer, small push/auto+auto       1 / 1
  38 pagerank f32/thread                       1 / 1
  38 pagerank f32/group2                       1 / 1
  38 pagerank f32/warp                         1 / 1
  38 pagerank f32/group64                      1 / 1
  38 pagerank f32/block                        1 / 1
  38 pagerank f32/mean_group                   1 / 1
  38 pagerank f32/work_oriented                1 / 1
  38 pagerank f32/merge_path                   1 / 1
  38 pagerank f32/split                        1 / 1
  38 pagerank f32/hierarchical                 1 / 1
  38 pagerank f32/lrb                          1 / 1
  38 pagerank f32/auto                         1 / 1
  38 pagerank f32 L1 stop/warp                 1 / 1
  38 pagerank f64/thread                       1 / 1
  38 pagerank f64/group2                       1 / 1
  38 pagerank f64/warp                         1 / 1
  38 pagerank f64/group64                      1 / 1
  38 pagerank f64/block                        1 / 1
  38 pagerank f64/mean_group                   1 / 1
  38 pagerank f64/work_oriented                1 / 1
  38 pagerank f64/merge_path                   1 / 1
  38 pagerank f64/split                        1 / 1
  38 pagerank f64/hierarchical                 1 / 1
  38 pagerank f64/lrb                          1 / 1
  38 pagerank f64/auto                         1 / 1
  38 pagerank f64 L1 stop/warp                 1 / 1
  38 cc/thread                                 1 / 1
  38 cc/group2                                 1 / 1
  38 cc/warp                                   1 / 1
  38 cc/group64                                1 / 1
  38 cc/block                                  1 / 1
  38 cc/mean_group                             1 / 1
  38 cc/work_oriented                          1 / 1
  38 cc/merge_path                             1 / 1
  38 cc/split                                  1 / 1
  38 cc/hierarchical                           1 / 1
  38 cc/lrb                                    1 / 1
  38 cc/auto                                   1 / 1
  38 k-core/thread                             1 / 1
  38 k-core/group2                             1 / 1
  38 k-core/warp                               1 / 1
  38 k-core/group64                            1 / 1
  38 k-core/block                              1 / 1
  38 k-core/mean_group                         1 / 1
  38 k-core/work_oriented                      1 / 1
  38 k-core/merge_path                         1 / 1
  38 k-core/split                              1 / 1
  38 k-core/hierarchical                       1 / 1
  38 k-core/lrb                                1 / 1
  38 k-core/auto                               1 / 1
  38 tc/thread                                 1 / 1
  38 tc/group2                                 1 / 1
  38 tc/warp                                   1 / 1
  38 tc/group64                                1 / 1
  38 tc/block                                  1 / 1
  38 tc/mean_group                             1 / 1
  38 tc/work_oriented                          1 / 1
  38 tc/merge_path                             1 / 1
  38 tc/split                                  1 / 1
  38 tc/hierarchical                           1 / 1
  38 tc/lrb                                    1 / 1
  38 tc/auto                                   1 / 1
  39 ok
  39 test grids_and_a_road_network_path ... seed 1795867537152812075
  39 grid 1x24: source 12
  46 grid 1x24: 24 vertices, 70 edges, 1 sources: 7.08 s
  46 kernel / schedule                         passed / run  (1 matrices)
  46 bfs_do beamer/thread+thread               1 / 1
  46 bfs_do pull/thread+thread                 1 / 1
  46 bfs_do beamer/group2+group2               1 / 1
  46 bfs_do pull/group2+group2                 1 / 1
  46 bfs_do beamer/warp+warp                   1 / 1
  46 bfs_do pull/warp+warp                     1 / 1
  46 bfs_do beamer/group64+group64             1 / 1
  46 bfs_do pull/group64+group64               1 / 1
  46 bfs_do beamer/block+block                 1 / 1
  46 bfs_do pull/block+block                   1 / 1
  46 bfs_do beamer/mean_group+warp             1 / 1
  46 bfs_do pull/mean_group+warp               1 / 1
  46 bfs_do beamer/work_oriented+warp          1 / 1
  46 bfs_do pull/work_oriented+warp            1 / 1
  46 bfs_do beamer/merge_path+warp             1 / 1
  46 bfs_do pull/merge_path+warp               1 / 1
  46 bfs_do beamer/split+warp                  1 / 1
  46 bfs_do pull/split+warp                    1 / 1
  46 bfs_do beamer/hierarchical+hierarchical   1 / 1
  46 bfs_do pull/hierarchical+hierarchical     1 / 1
  46 bfs_do beamer/lrb+lrb                     1 / 1
  46 bfs_do pull/lrb+lrb                       1 / 1
  46 bfs_do beamer/auto+auto                   1 / 1
  46 bfs_do pull/auto+auto                     1 / 1
  46 bfs_do push/warp+warp                     1 / 1
  46 bfs_do beamer, small push/merge_path+warp 1 / 1
  46 bfs_do beamer, small push/auto+auto       1 / 1
  46 pagerank f32/thread                       1 / 1
  46 pagerank f32/group2                       1 / 1
  46 pagerank f32/warp                         1 / 1
  46 pagerank f32/group64                      1 / 1
  46 pagerank f32/block                        1 / 1
  46 pagerank f32/mean_group                   1 / 1
  46 pagerank f32/work_oriented                1 / 1
  46 pagerank f32/merge_path                   1 / 1
  46 pagerank f32/split                        1 / 1
  46 pagerank f32/hierarchical                 1 / 1
  46 pagerank f32/lrb                          1 / 1
  46 pagerank f32/auto                         1 / 1
  46 pagerank f32 L1 stop/warp                 1 / 1
  46 pagerank f64/thread                       1 / 1
  46 pagerank f64/group2                       1 / 1
  46 pagerank f64/warp                         1 / 1
  46 pagerank f64/group64                      1 / 1
  46 pagerank f64/block                        1 / 1
  46 pagerank f64/mean_group                   1 / 1
  46 pagerank f64/work_oriented                1 / 1
  46 pagerank f64/merge_path                   1 / 1
  46 pagerank f64/split                        1 / 1
  46 pagerank f64/hierarchical                 1 / 1
  46 pagerank f64/lrb                          1 / 1
  46 pagerank f64/auto                         1 / 1
  46 pagerank f64 L1 stop/warp                 1 / 1
  46 cc/thread                                 1 / 1
  46 cc/group2                                 1 / 1
  46 cc/warp                                   1 / 1
  46 cc/group64                                1 / 1
  46 cc/block                                  1 / 1
  46 cc/mean_group                             1 / 1
  46 cc/work_oriented                          1 / 1
  46 cc/merge_path                             1 / 1
  46 cc/split                                  1 / 1
  46 cc/hierarchical                           1 / 1
  46 cc/lrb                                    1 / 1
  46 cc/auto                                   1 / 1
  46 k-core/thread                             1 / 1
  46 k-core/group2                             1 / 1
  46 k-core/warp                               1 / 1
  46 k-core/group64                            1 / 1
  46 k-core/block                              1 / 1
  46 k-core/mean_group                         1 / 1
  46 k-core/work_oriented                      1 / 1
  46 k-core/merge_path                         1 / 1
  46 k-core/split                              1 / 1
  46 k-core/hierarchical                       1 / 1
  46 k-core/lrb                                1 / 1
  46 k-core/auto                               1 / 1
  46 tc/thread                                 1 / 1
  46 tc/group2                                 1 / 1
  46 tc/warp                                   1 / 1
  46 tc/group64                                1 / 1
  46 tc/block                                  1 / 1
  46 tc/mean_group                             1 / 1
  46 tc/work_oriented                          1 / 1
  46 tc/merge_path                             1 / 1
  46 tc/split                                  1 / 1
  46 tc/hierarchical                           1 / 1
  46 tc/lrb                                    1 / 1
  46 tc/auto                                   1 / 1
  46 ok
  46 test grids_and_a_road_network_road ... seed 1795867544851826851
  47 road network 400: source 199
  56 road network 400: 400 vertices, 1032 edges, 1 sources: 9.49 s
  56 kernel / schedule                         passed / run  (1 matrices)
  56 bfs_do beamer/thread+thread               1 / 1
  56 bfs_do pull/thread+thread                 1 / 1
  56 bfs_do beamer/group2+group2               1 / 1
  56 bfs_do pull/group2+group2                 1 / 1
  56 bfs_do beamer/warp+warp                   1 / 1
  56 bfs_do pull/warp+warp                     1 / 1
  56 bfs_do beamer/group64+group64             1 / 1
  56 bfs_do pull/group64+group64               1 / 1
  56 bfs_do beamer/block+block                 1 / 1
  56 bfs_do pull/block+block                   1 / 1
  56 bfs_do beamer/mean_group+warp             1 / 1
  56 bfs_do pull/mean_group+warp               1 / 1
  56 bfs_do beamer/work_oriented+warp          1 / 1
  56 bfs_do pull/work_oriented+warp            1 / 1
  56 bfs_do beamer/merge_path+warp             1 / 1
  56 bfs_do pull/merge_path+warp               1 / 1
  56 bfs_do beamer/split+warp                  1 / 1
  56 bfs_do pull/split+warp                    1 / 1
  56 bfs_do beamer/hierarchical+hierarchical   1 / 1
  56 bfs_do pull/hierarchical+hierarchical     1 / 1
  56 bfs_do beamer/lrb+lrb                     1 / 1
  56 bfs_do pull/lrb+lrb                       1 / 1
  56 bfs_do beamer/auto+auto                   1 / 1
  56 bfs_do pull/auto+auto                     1 / 1
  56 bfs_do push/warp+warp                     1 / 1
  56 bfs_do beamer, small push/merge_path+warp 1 / 1
  56 bfs_do beamer, small push/auto+auto       1 / 1
  56 pagerank f32/thread                       1 / 1
  56 pagerank f32/group2                       1 / 1
  56 pagerank f32/warp                         1 / 1
  56 pagerank f32/group64                      1 / 1
  56 pagerank f32/block                        1 / 1
  56 pagerank f32/mean_group                   1 / 1
  56 pagerank f32/work_oriented                1 / 1
  56 pagerank f32/merge_path                   1 / 1
  56 pagerank f32/split                        1 / 1
  56 pagerank f32/hierarchical                 1 / 1
  56 pagerank f32/lrb                          1 / 1
  56 pagerank f32/auto                         1 / 1
  56 pagerank f32 L1 stop/warp                 1 / 1
  56 pagerank f64/thread                       1 / 1
  56 pagerank f64/group2                       1 / 1
  56 pagerank f64/warp                         1 / 1
  56 pagerank f64/group64                      1 / 1
  56 pagerank f64/block                        1 / 1
  56 pagerank f64/mean_group                   1 / 1
  56 pagerank f64/work_oriented                1 / 1
  56 pagerank f64/merge_path                   1 / 1
  56 pagerank f64/split                        1 / 1
  56 pagerank f64/hierarchical                 1 / 1
  56 pagerank f64/lrb                          1 / 1
  56 pagerank f64/auto                         1 / 1
  56 pagerank f64 L1 stop/warp                 1 / 1
  56 cc/thread                                 1 / 1
  56 cc/group2                                 1 / 1
  56 cc/warp                                   1 / 1
  56 cc/group64                                1 / 1
  56 cc/block                                  1 / 1
  56 cc/mean_group                             1 / 1
  56 cc/work_oriented                          1 / 1
  56 cc/merge_path                             1 / 1
  56 cc/split                                  1 / 1
  56 cc/hierarchical                           1 / 1
  56 cc/lrb                                    1 / 1
  56 cc/auto                                   1 / 1
  56 k-core/thread                             1 / 1
  56 k-core/group2                             1 / 1
  56 k-core/warp                               1 / 1
  56 k-core/group64                            1 / 1
  56 k-core/block                              1 / 1
  56 k-core/mean_group                         1 / 1
  56 k-core/work_oriented                      1 / 1
  56 k-core/merge_path                         1 / 1
  56 k-core/split                              1 / 1
  56 k-core/hierarchical                       1 / 1
  56 k-core/lrb                                1 / 1
  56 k-core/auto                               1 / 1
  56 tc/thread                                 1 / 1
  56 tc/group2                                 1 / 1
  56 tc/warp                                   1 / 1
  56 tc/group64                                1 / 1
  56 tc/block                                  1 / 1
  56 tc/mean_group                             1 / 1
  56 tc/work_oriented                          1 / 1
  56 tc/merge_path                             1 / 1
  56 tc/split                                  1 / 1
  56 tc/hierarchical                           1 / 1
  56 tc/lrb                                    1 / 1
  56 tc/auto                                   1 / 1
  56 ok
  56 test isolated_vertices_and_small_graphs ... small with isolated vertices: source 0
  57 small with isolated vertices: source 5
  58 small with isolated vertices: source 10
  58 small with isolated vertices: source 12
  59 small with isolated vertices: source 13
  62 small with isolated vertices: 20 vertices, 16 edges, 5 sources: 5.94 s
  62 single vertex: source 0
  64 single vertex: 1 vertices, 0 edges, 1 sources: 1.93 s
  64 star + path: source 0
  66 star + path: source 20
  72 star + path: 1501 vertices, 1544 edges, 2 sources: 8.25 s
  72 kernel / schedule                         passed / run  (3 matrices)
  72 bfs_do beamer/thread+thread               8 / 8
  72 bfs_do pull/thread+thread                 8 / 8
  72 bfs_do beamer/group2+group2               8 / 8
  72 bfs_do pull/group2+group2                 8 / 8
  72 bfs_do beamer/warp+warp                   8 / 8
  72 bfs_do pull/warp+warp                     8 / 8
  72 bfs_do beamer/group64+group64             8 / 8
  72 bfs_do pull/group64+group64               8 / 8
  72 bfs_do beamer/block+block                 8 / 8
  72 bfs_do pull/block+block                   8 / 8
  72 bfs_do beamer/mean_group+warp             8 / 8
  72 bfs_do pull/mean_group+warp               8 / 8
  72 bfs_do beamer/work_oriented+warp          8 / 8
  72 bfs_do pull/work_oriented+warp            8 / 8
  72 bfs_do beamer/merge_path+warp             8 / 8
  72 bfs_do pull/merge_path+warp               8 / 8
  72 bfs_do beamer/split+warp                  8 / 8
  72 bfs_do pull/split+warp                    8 / 8
  72 bfs_do beamer/hierarchical+hierarchical   8 / 8
  72 bfs_do pull/hierarchical+hierarchical     8 / 8
  72 bfs_do beamer/lrb+lrb                     8 / 8
  72 bfs_do pull/lrb+lrb                       8 / 8
  72 bfs_do beamer/auto+auto                   8 / 8
  72 bfs_do pull/auto+auto                     8 / 8
  72 bfs_do push/warp+warp                     8 / 8
  72 bfs_do beamer, small push/merge_path+warp 8 / 8
  72 bfs_do beamer, small push/auto+auto       8 / 8
  72 pagerank f32/thread                       3 / 3
  72 pagerank f32/group2                       3 / 3
  72 pagerank f32/warp                         3 / 3
  72 pagerank f32/group64                      3 / 3
  72 pagerank f32/block                        3 / 3
  72 pagerank f32/mean_group                   3 / 3
  72 pagerank f32/work_oriented                3 / 3
  72 pagerank f32/merge_path                   3 / 3
  72 pagerank f32/split                        3 / 3
  72 pagerank f32/hierarchical                 3 / 3
  72 pagerank f32/lrb                          3 / 3
  72 pagerank f32/auto                         3 / 3
  72 pagerank f32 L1 stop/warp                 3 / 3
  72 pagerank f64/thread                       3 / 3
  72 pagerank f64/group2                       3 / 3
  72 pagerank f64/warp                         3 / 3
  72 pagerank f64/group64                      3 / 3
  72 pagerank f64/block                        3 / 3
  72 pagerank f64/mean_group                   3 / 3
  72 pagerank f64/work_oriented                3 / 3
  72 pagerank f64/merge_path                   3 / 3
  72 pagerank f64/split                        3 / 3
  72 pagerank f64/hierarchical                 3 / 3
  72 pagerank f64/lrb                          3 / 3
  72 pagerank f64/auto                         3 / 3
  72 pagerank f64 L1 stop/warp                 3 / 3
  72 cc/thread                                 3 / 3
  72 cc/group2                                 3 / 3
  72 cc/warp                                   3 / 3
  72 cc/group64                                3 / 3
  72 cc/block                                  3 / 3
  72 cc/mean_group                             3 / 3
  72 cc/work_oriented                          3 / 3
  72 cc/merge_path                             3 / 3
  72 cc/split                                  3 / 3
  72 cc/hierarchical                           3 / 3
  72 cc/lrb                                    3 / 3
  72 cc/auto                                   3 / 3
  72 k-core/thread                             3 / 3
  72 k-core/group2                             3 / 3
  72 k-core/warp                               3 / 3
  72 k-core/group64                            3 / 3
  72 k-core/block                              3 / 3
  72 k-core/mean_group                         3 / 3
  72 k-core/work_oriented                      3 / 3
  72 k-core/merge_path                         3 / 3
  72 k-core/split                              3 / 3
  72 k-core/hierarchical                       3 / 3
  72 k-core/lrb                                3 / 3
  72 k-core/auto                               3 / 3
  72 tc/thread                                 3 / 3
  72 tc/group2                                 3 / 3
  72 tc/warp                                   3 / 3
  72 tc/group64                                3 / 3
  72 tc/block                                  3 / 3
  72 tc/mean_group                             3 / 3
  72 tc/work_oriented                          3 / 3
  72 tc/merge_path                             3 / 3
  72 tc/split                                  3 / 3
  72 tc/hierarchical                           3 / 3
  72 tc/lrb                                    3 / 3
  72 tc/auto                                   3 / 3
  73 ok
  73 test rmat_scale_14_symmetrised ... seed 1795867571518882421
  73 rmat 9 symmetrised: source 0
  86 rmat 9 symmetrised: 512 vertices, 9658 edges, 1 sources: 12.48 s
  86 kernel / schedule                         passed / run  (1 matrices)
  86 bfs_do beamer/thread+thread               1 / 1
  86 bfs_do pull/thread+thread                 1 / 1
  86 bfs_do beamer/group2+group2               1 / 1
  86 bfs_do pull/group2+group2                 1 / 1
  86 bfs_do beamer/warp+warp                   1 / 1
  86 bfs_do pull/warp+warp                     1 / 1
  86 bfs_do beamer/group64+group64             1 / 1
  86 bfs_do pull/group64+group64               1 / 1
  86 bfs_do beamer/block+block                 1 / 1
  86 bfs_do pull/block+block                   1 / 1
  86 bfs_do beamer/mean_group+warp             1 / 1
  86 bfs_do pull/mean_group+warp               1 / 1
  86 bfs_do beamer/work_oriented+warp          1 / 1
  86 bfs_do pull/work_oriented+warp            1 / 1
  86 bfs_do beamer/merge_path+warp             1 / 1
  86 bfs_do pull/merge_path+warp               1 / 1
  86 bfs_do beamer/split+warp                  1 / 1
  86 bfs_do pull/split+warp                    1 / 1
  86 bfs_do beamer/hierarchical+hierarchical   1 / 1
  86 bfs_do pull/hierarchical+hierarchical     1 / 1
  86 bfs_do beamer/lrb+lrb                     1 / 1
  86 bfs_do pull/lrb+lrb                       1 / 1
  86 bfs_do beamer/auto+auto                   1 / 1
  86 bfs_do pull/auto+auto                     1 / 1
  86 bfs_do push/warp+warp                     1 / 1
  86 bfs_do beamer, small push/merge_path+warp 1 / 1
  86 bfs_do beamer, small push/auto+auto       1 / 1
  86 pagerank f32/thread                       1 / 1
  86 pagerank f32/group2                       1 / 1
  86 pagerank f32/warp                         1 / 1
  86 pagerank f32/group64                      1 / 1
  86 pagerank f32/block                        1 / 1
  86 pagerank f32/mean_group                   1 / 1
  86 pagerank f32/work_oriented                1 / 1
  86 pagerank f32/merge_path                   1 / 1
  86 pagerank f32/split                        1 / 1
  86 pagerank f32/hierarchical                 1 / 1
  86 pagerank f32/lrb                          1 / 1
  86 pagerank f32/auto                         1 / 1
  86 pagerank f32 L1 stop/warp                 1 / 1
  86 pagerank f64/thread                       1 / 1
  86 pagerank f64/group2                       1 / 1
  86 pagerank f64/warp                         1 / 1
  86 pagerank f64/group64                      1 / 1
  86 pagerank f64/block                        1 / 1
  86 pagerank f64/mean_group                   1 / 1
  86 pagerank f64/work_oriented                1 / 1
  86 pagerank f64/merge_path                   1 / 1
  86 pagerank f64/split                        1 / 1
  86 pagerank f64/hierarchical                 1 / 1
  86 pagerank f64/lrb                          1 / 1
  86 pagerank f64/auto                         1 / 1
  86 pagerank f64 L1 stop/warp                 1 / 1
  86 cc/thread                                 1 / 1
  86 cc/group2                                 1 / 1
  86 cc/warp                                   1 / 1
  86 cc/group64                                1 / 1
  86 cc/block                                  1 / 1
  86 cc/mean_group                             1 / 1
  86 cc/work_oriented                          1 / 1
  86 cc/merge_path                             1 / 1
  86 cc/split                                  1 / 1
  86 cc/hierarchical                           1 / 1
  86 cc/lrb                                    1 / 1
  86 cc/auto                                   1 / 1
  86 k-core/thread                             1 / 1
  86 k-core/group2                             1 / 1
  86 k-core/warp                               1 / 1
  86 k-core/group64                            1 / 1
  86 k-core/block                              1 / 1
  86 k-core/mean_group                         1 / 1
  86 k-core/work_oriented                      1 / 1
  86 k-core/merge_path                         1 / 1
  86 k-core/split                              1 / 1
  86 k-core/hierarchical                       1 / 1
  86 k-core/lrb                                1 / 1
  86 k-core/auto                               1 / 1
  86 tc/thread                                 1 / 1
  86 tc/group2                                 1 / 1
  86 tc/warp                                   1 / 1
  86 tc/group64                                1 / 1
  86 tc/block                                  1 / 1
  86 tc/mean_group                             1 / 1
  86 tc/work_oriented                          1 / 1
  86 tc/merge_path                             1 / 1
  86 tc/split                                  1 / 1
  86 tc/hierarchical                           1 / 1
  86 tc/lrb                                    1 / 1
  86 tc/auto                                   1 / 1
  86 ok
  86 
  86 test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 86.07s
  86 
  86 ========= ERROR SUMMARY: 0 errors
  86 (end: exit 0)
