   0 ========= COMPUTE-SANITIZER
   0 
   0 running 6 tests
   2 test every_real_matrix ... seed 1795867500383133573
   2 karate.mtx: source 0
  22 karate.mtx: 34 vertices, 156 edges, 1 sources: 19.66 s
  22 ldbc-directed-example.mtx: source 0
  27 ldbc-directed-example.mtx: 10 vertices, 17 edges, 1 sources: 5.17 s
  27 west0067.mtx: source 0
  34 west0067.mtx: 67 vertices, 294 edges, 1 sources: 6.95 s
  34 kernel / schedule                         passed / run  (3 matrices)
  34 bfs_do beamer/thread+thread               3 / 3
  34 bfs_do pull/thread+thread                 3 / 3
  34 bfs_do beamer/group2+group2               3 / 3
  34 bfs_do pull/group2+group2                 3 / 3
  34 bfs_do beamer/warp+warp                   3 / 3
  34 bfs_do pull/warp+warp                     3 / 3
  34 bfs_do beamer/group64+group64             3 / 3
  34 bfs_do pull/group64+group64               3 / 3
  34 bfs_do beamer/block+block                 3 / 3
  34 bfs_do pull/block+block                   3 / 3
  34 bfs_do beamer/mean_group+warp             3 / 3
  34 bfs_do pull/mean_group+warp               3 / 3
  34 bfs_do beamer/work_oriented+warp          3 / 3
  34 bfs_do pull/work_oriented+warp            3 / 3
  34 bfs_do beamer/merge_path+warp             3 / 3
  34 bfs_do pull/merge_path+warp               3 / 3
  34 bfs_do beamer/split+warp                  3 / 3
  34 bfs_do pull/split+warp                    3 / 3
  34 bfs_do beamer/hierarchical+hierarchical   3 / 3
  34 bfs_do pull/hierarchical+hierarchical     3 / 3
  34 bfs_do beamer/lrb+lrb                     3 / 3
  34 bfs_do pull/lrb+lrb                       3 / 3
  34 bfs_do beamer/auto+auto                   3 / 3
  34 bfs_do pull/auto+auto                     3 / 3
  34 bfs_do push/warp+warp                     3 / 3
  34 bfs_do beamer, small push/merge_path+warp 3 / 3
  34 bfs_do beamer, small push/auto+auto       3 / 3
  34 pagerank f32/thread                       3 / 3
  34 pagerank f32/group2                       3 / 3
  34 pagerank f32/warp                         3 / 3
  34 pagerank f32/group64                      3 / 3
  34 pagerank f32/block                        3 / 3
  34 pagerank f32/mean_group                   3 / 3
  34 pagerank f32/work_oriented                3 / 3
  34 pagerank f32/merge_path                   3 / 3
  34 pagerank f32/split                        3 / 3
  34 pagerank f32/hierarchical                 3 / 3
  34 pagerank f32/lrb                          3 / 3
  34 pagerank f32/auto                         3 / 3
  34 pagerank f32 L1 stop/warp                 3 / 3
  34 pagerank f64/thread                       3 / 3
  34 pagerank f64/group2                       3 / 3
  34 pagerank f64/warp                         3 / 3
  34 pagerank f64/group64                      3 / 3
  34 pagerank f64/block                        3 / 3
  34 pagerank f64/mean_group                   3 / 3
  34 pagerank f64/work_oriented                3 / 3
  34 pagerank f64/merge_path                   3 / 3
  34 pagerank f64/split                        3 / 3
  34 pagerank f64/hierarchical                 3 / 3
  34 pagerank f64/lrb                          3 / 3
  34 pagerank f64/auto                         3 / 3
  34 pagerank f64 L1 stop/warp                 3 / 3
  34 cc/thread                                 3 / 3
  34 cc/group2                                 3 / 3
  34 cc/warp                                   3 / 3
  34 cc/group64                                3 / 3
  34 cc/block                                  3 / 3
  34 cc/mean_group                             3 / 3
  34 cc/work_oriented                          3 / 3
  34 cc/merge_path                             3 / 3
  34 cc/split                                  3 / 3
  34 cc/hierarchical                           3 / 3
  34 cc/lrb                                    3 / 3
  34 cc/auto                                   3 / 3
  34 k-core/thread                             3 / 3
  34 k-core/group2                             3 / 3
  34 k-core/warp                               3 / 3
  34 k-core/group64                            3 / 3
  34 k-core/block                              3 / 3
  34 k-core/mean_group                         3 / 3
  34 k-core/work_oriented                      3 / 3
  34 k-core/merge_path                         3 / 3
  34 k-core/split                              3 / 3
  34 k-core/hierarchical                       3 / 3
  34 k-core/lrb                                3 / 3
  34 k-core/auto                               3 / 3
  34 tc/thread                                 3 / 3
  34 tc/group2                                 3 / 3
  34 tc/warp                                   3 / 3
  34 tc/group64                                3 / 3
  34 tc/block                                  3 / 3
  34 tc/mean_group                             3 / 3
  34 tc/work_oriented                          3 / 3
  34 tc/merge_path                             3 / 3
  34 tc/split                                  3 / 3
  34 tc/hierarchical                           3 / 3
  34 tc/lrb                                    3 / 3
  34 tc/auto                                   3 / 3
  34 ok
  34 test grids_and_a_road_network ... seed 1795867532875537585
  35 grid 24x14: source 180
  51 grid 24x14: 336 vertices, 1604 edges, 1 sources: 16.24 s
  51 kernel / schedule                         passed / run  (1 matrices)
  51 bfs_do beamer/thread+thread               1 / 1
  51 bfs_do pull/thread+thread                 1 / 1
  51 bfs_do beamer/group2+group2               1 / 1
  51 bfs_do pull/group2+group2                 1 / 1
  51 bfs_do beamer/warp+warp                   1 / 1
  51 bfs_do pull/warp+warp                     1 / 1
  51 bfs_do beamer/group64+group64             1 / 1
  51 bfs_do pull/group64+group64               1 / 1
  51 bfs_do beamer/block+block                 1 / 1
  51 bfs_do pull/block+block                   1 / 1
  51 bfs_do beamer/mean_group+warp             1 / 1
  51 bfs_do pull/mean_group+warp               1 / 1
  51 bfs_do beamer/work_oriented+warp          1 / 1
  51 bfs_do pull/work_oriented+warp            1 / 1
  51 bfs_do beamer/merge_path+warp             1 / 1
  51 bfs_do pull/merge_path+warp               1 / 1
  51 bfs_do beamer/split+warp                  1 / 1
  51 bfs_do pull/split+warp                    1 / 1
  51 bfs_do beamer/hierarchical+hierarchical   1 / 1
  51 bfs_do pull/hierarchical+hierarchical     1 / 1
  51 bfs_do beamer/lrb+lrb                     1 / 1
  51 bfs_do pull/lrb+lrb                       1 / 1
  51 bfs_do beamer/auto+auto                   1 / 1
  51 bfs_do pull/auto+auto                     1 / 1
  51 bfs_do push/warp+warp                     1 / 1
  51 bfs_do beamer, small push/merge_path+warp 1 / 1
  51 bfs_do beamer, small push/auto+auto       1 / 1
  51 pagerank f32/thread                       1 / 1
  51 pagerank f32/group2                       1 / 1
  51 pagerank f32/warp                         1 / 1
  51 pagerank f32/group64                      1 / 1
  51 pagerank f32/block                        1 / 1
  51 pagerank f32/mean_group                   1 / 1
  51 pagerank f32/work_oriented                1 / 1
  51 pagerank f32/merge_path                   1 / 1
  51 pagerank f32/split                        1 / 1
  51 pagerank f32/hierarchical                 1 / 1
  51 pagerank f32/lrb                          1 / 1
  51 pagerank f32/auto                         1 / 1
  51 pagerank f32 L1 stop/warp                 1 / 1
  51 pagerank f64/thread                       1 / 1
  51 pagerank f64/group2                       1 / 1
  51 pagerank f64/warp                         1 / 1
  51 pagerank f64/group64                      1 / 1
  51 pagerank f64/block                        1 / 1
  51 pagerank f64/mean_group                   1 / 1
  51 pagerank f64/work_oriented                1 / 1
  51 pagerank f64/merge_path                   1 / 1
  51 pagerank f64/split                        1 / 1
  51 pagerank f64/hierarchical                 1 / 1
  51 pagerank f64/lrb                          1 / 1
  51 pagerank f64/auto                         1 / 1
  51 pagerank f64 L1 stop/warp                 1 / 1
  51 cc/thread                                 1 / 1
  51 cc/group2                                 1 / 1
  51 cc/warp                                   1 / 1
  51 cc/group64                                1 / 1
  51 cc/block                                  1 / 1
  51 cc/mean_group                             1 / 1
  51 cc/work_oriented                          1 / 1
  51 cc/merge_path                             1 / 1
  51 cc/split                                  1 / 1
  51 cc/hierarchical                           1 / 1
  51 cc/lrb                                    1 / 1
  51 cc/auto                                   1 / 1
  51 k-core/thread                             1 / 1
  51 k-core/group2                             1 / 1
  51 k-core/warp                               1 / 1
  51 k-core/group64                            1 / 1
  51 k-core/block                              1 / 1
  51 k-core/mean_group                         1 / 1
  51 k-core/work_oriented                      1 / 1
  51 k-core/merge_path                         1 / 1
  51 k-core/split                              1 / 1
  51 k-core/hierarchical                       1 / 1
  51 k-core/lrb                                1 / 1
  51 k-core/auto                               1 / 1
  51 tc/thread                                 1 / 1
  51 tc/group2                                 1 / 1
  51 tc/warp                                   1 / 1
  51 tc/group64                                1 / 1
  51 tc/block                                  1 / 1
  51 tc/mean_group                             1 / 1
  51 tc/work_oriented                          1 / 1
  51 tc/merge_path                             1 / 1
  51 tc/split                                  1 / 1
  51 tc/hierarchical                           1 / 1
  51 tc/lrb                                    1 / 1
  51 tc/auto                                   1 / 1
  52 ok
  52 test grids_and_a_road_network_path ... seed 1795867550329258869
  52 grid 1x24: source 12
  62 grid 1x24: 24 vertices, 70 edges, 1 sources: 9.93 s
  62 kernel / schedule                         passed / run  (1 matrices)
  62 bfs_do beamer/thread+thread               1 / 1
  62 bfs_do pull/thread+thread                 1 / 1
  62 bfs_do beamer/group2+group2               1 / 1
  62 bfs_do pull/group2+group2                 1 / 1
  62 bfs_do beamer/warp+warp                   1 / 1
  62 bfs_do pull/warp+warp                     1 / 1
  62 bfs_do beamer/group64+group64             1 / 1
  62 bfs_do pull/group64+group64               1 / 1
  62 bfs_do beamer/block+block                 1 / 1
  62 bfs_do pull/block+block                   1 / 1
  62 bfs_do beamer/mean_group+warp             1 / 1
  62 bfs_do pull/mean_group+warp               1 / 1
  62 bfs_do beamer/work_oriented+warp          1 / 1
  62 bfs_do pull/work_oriented+warp            1 / 1
  62 bfs_do beamer/merge_path+warp             1 / 1
  62 bfs_do pull/merge_path+warp               1 / 1
  62 bfs_do beamer/split+warp                  1 / 1
  62 bfs_do pull/split+warp                    1 / 1
  62 bfs_do beamer/hierarchical+hierarchical   1 / 1
  62 bfs_do pull/hierarchical+hierarchical     1 / 1
  62 bfs_do beamer/lrb+lrb                     1 / 1
  62 bfs_do pull/lrb+lrb                       1 / 1
  62 bfs_do beamer/auto+auto                   1 / 1
  62 bfs_do pull/auto+auto                     1 / 1
  62 bfs_do push/warp+warp                     1 / 1
  62 bfs_do beamer, small push/merge_path+warp 1 / 1
  62 bfs_do beamer, small push/auto+auto       1 / 1
  62 pagerank f32/thread                       1 / 1
  62 pagerank f32/group2                       1 / 1
  62 pagerank f32/warp                         1 / 1
  62 pagerank f32/group64                      1 / 1
  62 pagerank f32/block                        1 / 1
  62 pagerank f32/mean_group                   1 / 1
  62 pagerank f32/work_oriented                1 / 1
  62 pagerank f32/merge_path                   1 / 1
  62 pagerank f32/split                        1 / 1
  62 pagerank f32/hierarchical                 1 / 1
  62 pagerank f32/lrb                          1 / 1
  62 pagerank f32/auto                         1 / 1
  62 pagerank f32 L1 stop/warp                 1 / 1
  62 pagerank f64/thread                       1 / 1
  62 pagerank f64/group2                       1 / 1
  62 pagerank f64/warp                         1 / 1
  62 pagerank f64/group64                      1 / 1
  62 pagerank f64/block                        1 / 1
  62 pagerank f64/mean_group                   1 / 1
  62 pagerank f64/work_oriented                1 / 1
  62 pagerank f64/merge_path                   1 / 1
  62 pagerank f64/split                        1 / 1
  62 pagerank f64/hierarchical                 1 / 1
  62 pagerank f64/lrb                          1 / 1
  62 pagerank f64/auto                         1 / 1
  62 pagerank f64 L1 stop/warp                 1 / 1
  62 cc/thread                                 1 / 1
  62 cc/group2                                 1 / 1
  62 cc/warp                                   1 / 1
  62 cc/group64                                1 / 1
  62 cc/block                                  1 / 1
  62 cc/mean_group                             1 / 1
  62 cc/work_oriented                          1 / 1
  62 cc/merge_path                             1 / 1
  62 cc/split                                  1 / 1
  62 cc/hierarchical                           1 / 1
  62 cc/lrb                                    1 / 1
  62 cc/auto                                   1 / 1
  62 k-core/thread                             1 / 1
  62 k-core/group2                             1 / 1
  62 k-core/warp                               1 / 1
  62 k-core/group64                            1 / 1
  62 k-core/block                              1 / 1
  62 k-core/mean_group                         1 / 1
  62 k-core/work_oriented                      1 / 1
  62 k-core/merge_path                         1 / 1
  62 k-core/split                              1 / 1
  62 k-core/hierarchical                       1 / 1
  62 k-core/lrb                                1 / 1
  62 k-core/auto                               1 / 1
  62 tc/thread                                 1 / 1
  62 tc/group2                                 1 / 1
  62 tc/warp                                   1 / 1
  62 tc/group64                                1 / 1
  62 tc/block                                  1 / 1
  62 tc/mean_group                             1 / 1
  62 tc/work_oriented                          1 / 1
  62 tc/merge_path                             1 / 1
  62 tc/split                                  1 / 1
  62 tc/hierarchical                           1 / 1
  62 tc/lrb                                    1 / 1
  62 tc/auto                                   1 / 1
  63 ok
  63 test grids_and_a_road_network_road ... seed 1795867561392414591
  64 road network 400: source 199
  87 road network 400: 400 vertices, 922 edges, 1 sources: 23.10 s
  87 kernel / schedule                         passed / run  (1 matrices)
  87 bfs_do beamer/thread+thread               1 / 1
  87 bfs_do pull/thread+thread                 1 / 1
  87 bfs_do beamer/group2+group2               1 / 1
  87 bfs_do pull/group2+group2                 1 / 1
  87 bfs_do beamer/warp+warp                   1 / 1
  87 bfs_do pull/warp+warp                     1 / 1
  87 bfs_do beamer/group64+group64             1 / 1
  87 bfs_do pull/group64+group64               1 / 1
  87 bfs_do beamer/block+block                 1 / 1
  87 bfs_do pull/block+block                   1 / 1
  87 bfs_do beamer/mean_group+warp             1 / 1
  87 bfs_do pull/mean_group+warp               1 / 1
  87 bfs_do beamer/work_oriented+warp          1 / 1
  87 bfs_do pull/work_oriented+warp            1 / 1
  87 bfs_do beamer/merge_path+warp             1 / 1
  87 bfs_do pull/merge_path+warp               1 / 1
  87 bfs_do beamer/split+warp                  1 / 1
  87 bfs_do pull/split+warp                    1 / 1
  87 bfs_do beamer/hierarchical+hierarchical   1 / 1
  87 bfs_do pull/hierarchical+hierarchical     1 / 1
  87 bfs_do beamer/lrb+lrb                     1 / 1
  87 bfs_do pull/lrb+lrb                       1 / 1
  87 bfs_do beamer/auto+auto                   1 / 1
  87 bfs_do pull/auto+auto                     1 / 1
  87 bfs_do push/warp+warp                     1 / 1
  87 bfs_do beamer, small push/merge_path+warp 1 / 1
  87 bfs_do beamer, small push/auto+auto       1 / 1
  87 pagerank f32/thread                       1 / 1
  87 pagerank f32/group2                       1 / 1
  87 pagerank f32/warp                         1 / 1
  87 pagerank f32/group64                      1 / 1
  87 pagerank f32/block                        1 / 1
  87 pagerank f32/mean_group                   1 / 1
  87 pagerank f32/work_oriented                1 / 1
  87 pagerank f32/merge_path                   1 / 1
  87 pagerank f32/split                        1 / 1
  87 pagerank f32/hierarchical                 1 / 1
  87 pagerank f32/lrb                          1 / 1
  87 pagerank f32/auto                         1 / 1
  87 pagerank f32 L1 stop/warp                 1 / 1
  87 pagerank f64/thread                       1 / 1
  87 pagerank f64/group2                       1 / 1
  87 pagerank f64/warp                         1 / 1
  87 pagerank f64/group64                      1 / 1
  87 pagerank f64/block                        1 / 1
  87 pagerank f64/mean_group                   1 / 1
  87 pagerank f64/work_oriented                1 / 1
  87 pagerank f64/merge_path                   1 / 1
  87 pagerank f64/split                        1 / 1
  87 pagerank f64/hierarchical                 1 / 1
  87 pagerank f64/lrb                          1 / 1
  87 pagerank f64/auto                         1 / 1
  87 pagerank f64 L1 stop/warp                 1 / 1
  87 cc/thread                                 1 / 1
  87 cc/group2                                 1 / 1
  87 cc/warp                                   1 / 1
  87 cc/group64                                1 / 1
  87 cc/block                                  1 / 1
  87 cc/mean_group                             1 / 1
  87 cc/work_oriented                          1 / 1
  87 cc/merge_path                             1 / 1
  87 cc/split                                  1 / 1
  87 cc/hierarchical                           1 / 1
  87 cc/lrb                                    1 / 1
  87 cc/auto                                   1 / 1
  87 k-core/thread                             1 / 1
  87 k-core/group2                             1 / 1
  87 k-core/warp                               1 / 1
  87 k-core/group64                            1 / 1
  87 k-core/block                              1 / 1
  87 k-core/mean_group                         1 / 1
  87 k-core/work_oriented                      1 / 1
  87 k-core/merge_path                         1 / 1
  87 k-core/split                              1 / 1
  87 k-core/hierarchical                       1 / 1
  87 k-core/lrb                                1 / 1
  87 k-core/auto                               1 / 1
  87 tc/thread                                 1 / 1
  87 tc/group2                                 1 / 1
  87 tc/warp                                   1 / 1
  87 tc/group64                                1 / 1
  87 tc/block                                  1 / 1
  87 tc/mean_group                             1 / 1
  87 tc/work_oriented                          1 / 1
  87 tc/merge_path                             1 / 1
  87 tc/split                                  1 / 1
  87 tc/hierarchical                           1 / 1
  87 tc/lrb                                    1 / 1
  87 tc/auto                                   1 / 1
  87 ok
  88 test isolated_vertices_and_small_graphs ... small with isolated vertices: source 0
  90 small with isolated vertices: source 5
  91 small with isolated vertices: source 10
  92 small with isolated vertices: source 12
  94 small with isolated vertices: source 13
  98 small with isolated vertices: 20 vertices, 16 edges, 5 sources: 10.01 s
  98 single vertex: source 0
 101 single vertex: 1 vertices, 0 edges, 1 sources: 2.52 s
 101 star + path: source 0
 102 star + path: source 20
 114 star + path: 1501 vertices, 1544 edges, 2 sources: 13.46 s
 114 kernel / schedule                         passed / run  (3 matrices)
 114 bfs_do beamer/thread+thread               8 / 8
 114 bfs_do pull/thread+thread                 8 / 8
 114 bfs_do beamer/group2+group2               8 / 8
 114 bfs_do pull/group2+group2                 8 / 8
 114 bfs_do beamer/warp+warp                   8 / 8
 114 bfs_do pull/warp+warp                     8 / 8
 114 bfs_do beamer/group64+group64             8 / 8
 114 bfs_do pull/group64+group64               8 / 8
 114 bfs_do beamer/block+block                 8 / 8
 114 bfs_do pull/block+block                   8 / 8
 114 bfs_do beamer/mean_group+warp             8 / 8
 114 bfs_do pull/mean_group+warp               8 / 8
 114 bfs_do beamer/work_oriented+warp          8 / 8
 114 bfs_do pull/work_oriented+warp            8 / 8
 114 bfs_do beamer/merge_path+warp             8 / 8
 114 bfs_do pull/merge_path+warp               8 / 8
 114 bfs_do beamer/split+warp                  8 / 8
 114 bfs_do pull/split+warp                    8 / 8
 114 bfs_do beamer/hierarchical+hierarchical   8 / 8
 114 bfs_do pull/hierarchical+hierarchical     8 / 8
 114 bfs_do beamer/lrb+lrb                     8 / 8
 114 bfs_do pull/lrb+lrb                       8 / 8
 114 bfs_do beamer/auto+auto                   8 / 8
 114 bfs_do pull/auto+auto                     8 / 8
 114 bfs_do push/warp+warp                     8 / 8
 114 bfs_do beamer, small push/merge_path+warp 8 / 8
 114 bfs_do beamer, small push/auto+auto       8 / 8
 114 pagerank f32/thread                       3 / 3
 114 pagerank f32/group2                       3 / 3
 114 pagerank f32/warp                         3 / 3
 114 pagerank f32/group64                      3 / 3
 114 pagerank f32/block                        3 / 3
 114 pagerank f32/mean_group                   3 / 3
 114 pagerank f32/work_oriented                3 / 3
 114 pagerank f32/merge_path                   3 / 3
 114 pagerank f32/split                        3 / 3
 114 pagerank f32/hierarchical                 3 / 3
 114 pagerank f32/lrb                          3 / 3
 114 pagerank f32/auto                         3 / 3
 114 pagerank f32 L1 stop/warp                 3 / 3
 114 pagerank f64/thread                       3 / 3
 114 pagerank f64/group2                       3 / 3
 114 pagerank f64/warp                         3 / 3
 114 pagerank f64/group64                      3 / 3
 114 pagerank f64/block                        3 / 3
 114 pagerank f64/mean_group                   3 / 3
 114 pagerank f64/work_oriented                3 / 3
 114 pagerank f64/merge_path                   3 / 3
 114 pagerank f64/split                        3 / 3
 114 pagerank f64/hierarchical                 3 / 3
 114 pagerank f64/lrb                          3 / 3
 114 pagerank f64/auto                         3 / 3
 114 pagerank f64 L1 stop/warp                 3 / 3
 114 cc/thread                                 3 / 3
 114 cc/group2                                 3 / 3
 114 cc/warp                                   3 / 3
 114 cc/group64                                3 / 3
 114 cc/block                                  3 / 3
 114 cc/mean_group                             3 / 3
 114 cc/work_oriented                          3 / 3
 114 cc/merge_path                             3 / 3
 114 cc/split                                  3 / 3
 114 cc/hierarchical                           3 / 3
 114 cc/lrb                                    3 / 3
 114 cc/auto                                   3 / 3
 114 k-core/thread                             3 / 3
 114 k-core/group2                             3 / 3
 114 k-core/warp                               3 / 3
 114 k-core/group64                            3 / 3
 114 k-core/block                              3 / 3
 114 k-core/mean_group                         3 / 3
 114 k-core/work_oriented                      3 / 3
 114 k-core/merge_path                         3 / 3
 114 k-core/split                              3 / 3
 114 k-core/hierarchical                       3 / 3
 114 k-core/lrb                                3 / 3
 114 k-core/auto                               3 / 3
 114 tc/thread                                 3 / 3
 114 tc/group2                                 3 / 3
 114 tc/warp                                   3 / 3
 114 tc/group64                                3 / 3
 114 tc/block                                  3 / 3
 114 tc/mean_group                             3 / 3
 114 tc/work_oriented                          3 / 3
 114 tc/merge_path                             3 / 3
 114 tc/split                                  3 / 3
 114 tc/hierarchical                           3 / 3
 114 tc/lrb                                    3 / 3
 114 tc/auto                                   3 / 3
 114 ok
 115 test rmat_scale_14_symmetrised ... seed 1795867613463878954
 115 rmat 9 symmetrised: source 0
 143 rmat 9 symmetrised: 512 vertices, 9622 edges, 1 sources: 28.35 s
 143 kernel / schedule                         passed / run  (1 matrices)
 143 bfs_do beamer/thread+thread               1 / 1
 143 bfs_do pull/thread+thread                 1 / 1
 143 bfs_do beamer/group2+group2               1 / 1
 143 bfs_do pull/group2+group2                 1 / 1
 143 bfs_do beamer/warp+warp                   1 / 1
 143 bfs_do pull/warp+warp                     1 / 1
 143 bfs_do beamer/group64+group64             1 / 1
 143 bfs_do pull/group64+group64               1 / 1
 143 bfs_do beamer/block+block                 1 / 1
 143 bfs_do pull/block+block                   1 / 1
 143 bfs_do beamer/mean_group+warp             1 / 1
 143 bfs_do pull/mean_group+warp               1 / 1
 143 bfs_do beamer/work_oriented+warp          1 / 1
 143 bfs_do pull/work_oriented+warp            1 / 1
 143 bfs_do beamer/merge_path+warp             1 / 1
 143 bfs_do pull/merge_path+warp               1 / 1
 143 bfs_do beamer/split+warp                  1 / 1
 143 bfs_do pull/split+warp                    1 / 1
 143 bfs_do beamer/hierarchical+hierarchical   1 / 1
 143 bfs_do pull/hierarchical+hierarchical     1 / 1
 143 bfs_do beamer/lrb+lrb                     1 / 1
 143 bfs_do pull/lrb+lrb                       1 / 1
 143 bfs_do beamer/auto+auto                   1 / 1
 143 bfs_do pull/auto+auto                     1 / 1
 143 bfs_do push/warp+warp                     1 / 1
 143 bfs_do beamer, small push/merge_path+warp 1 / 1
 143 bfs_do beamer, small push/auto+auto       1 / 1
 143 pagerank f32/thread                       1 / 1
 143 pagerank f32/group2                       1 / 1
 143 pagerank f32/warp                         1 / 1
 143 pagerank f32/group64                      1 / 1
 143 pagerank f32/block                        1 / 1
 143 pagerank f32/mean_group                   1 / 1
 143 pagerank f32/work_oriented                1 / 1
 143 pagerank f32/merge_path                   1 / 1
 143 pagerank f32/split                        1 / 1
 143 pagerank f32/hierarchical                 1 / 1
 143 pagerank f32/lrb                          1 / 1
 143 pagerank f32/auto                         1 / 1
 143 pagerank f32 L1 stop/warp                 1 / 1
 143 pagerank f64/thread                       1 / 1
 143 pagerank f64/group2                       1 / 1
 143 pagerank f64/warp                         1 / 1
 143 pagerank f64/group64                      1 / 1
 143 pagerank f64/block                        1 / 1
 143 pagerank f64/mean_group                   1 / 1
 143 pagerank f64/work_oriented                1 / 1
 143 pagerank f64/merge_path                   1 / 1
 143 pagerank f64/split                        1 / 1
 143 pagerank f64/hierarchical                 1 / 1
 143 pagerank f64/lrb                          1 / 1
 143 pagerank f64/auto                         1 / 1
 143 pagerank f64 L1 stop/warp                 1 / 1
 143 cc/thread                                 1 / 1
 143 cc/group2                                 1 / 1
 143 cc/warp                                   1 / 1
 143 cc/group64                                1 / 1
 143 cc/block                                  1 / 1
 143 cc/mean_group                             1 / 1
 143 cc/work_oriented                          1 / 1
 143 cc/merge_path                             1 / 1
 143 cc/split                                  1 / 1
 143 cc/hierarchical                           1 / 1
 143 cc/lrb                                    1 / 1
 143 cc/auto                                   1 / 1
 143 k-core/thread                             1 / 1
 143 k-core/group2                             1 / 1
 143 k-core/warp                               1 / 1
 143 k-core/group64                            1 / 1
 143 k-core/block                              1 / 1
 143 k-core/mean_group                         1 / 1
 143 k-core/work_oriented                      1 / 1
 143 k-core/merge_path                         1 / 1
 143 k-core/split                              1 / 1
 143 k-core/hierarchical                       1 / 1
 143 k-core/lrb                                1 / 1
 143 k-core/auto                               1 / 1
 143 tc/thread                                 1 / 1
 143 tc/group2                                 1 / 1
 143 tc/warp                                   1 / 1
 143 tc/group64                                1 / 1
 143 tc/block                                  1 / 1
 143 tc/mean_group                             1 / 1
 143 tc/work_oriented                          1 / 1
 143 tc/merge_path                             1 / 1
 143 tc/split                                  1 / 1
 143 tc/hierarchical                           1 / 1
 143 tc/lrb                                    1 / 1
 143 tc/auto                                   1 / 1
 144 ok
 144 
 144 test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 144.07s
 144 
 144 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 144 (end: exit 0)
