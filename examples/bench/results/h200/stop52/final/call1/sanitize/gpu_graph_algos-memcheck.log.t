   0 ========= COMPUTE-SANITIZER
   0 
   0 running 6 tests
   0 test every_real_matrix ... seed 1795870625394126944
   0 karate.mtx: source 0
   2 karate.mtx: 34 vertices, 156 edges, 1 sources: 1.66 s
   2 west0067.mtx: source 0
   3 west0067.mtx: 67 vertices, 294 edges, 1 sources: 1.17 s
   3 kernel / schedule                         passed / run  (2 matrices)
   3 bfs_do beamer/thread+thread               2 / 2
   3 bfs_do pull/thread+thread                 2 / 2
   3 bfs_do beamer/group2+group2               2 / 2
   3 bfs_do pull/group2+group2                 2 / 2
   3 bfs_do beamer/warp+warp                   2 / 2
   3 bfs_do pull/warp+warp                     2 / 2
   3 bfs_do beamer/group64+group64             2 / 2
   3 bfs_do pull/group64+group64               2 / 2
   3 bfs_do beamer/block+block                 2 / 2
   3 bfs_do pull/block+block                   2 / 2
   3 bfs_do beamer/mean_group+warp             2 / 2
   3 bfs_do pull/mean_group+warp               2 / 2
   3 bfs_do beamer/work_oriented+warp          2 / 2
   3 bfs_do pull/work_oriented+warp            2 / 2
   3 bfs_do beamer/merge_path+warp             2 / 2
   3 bfs_do pull/merge_path+warp               2 / 2
   3 bfs_do beamer/split+warp                  2 / 2
   3 bfs_do pull/split+warp                    2 / 2
   3 bfs_do beamer/hierarchical+hierarchical   2 / 2
   3 bfs_do pull/hierarchical+hierarchical     2 / 2
   3 bfs_do beamer/lrb+lrb                     2 / 2
   3 bfs_do pull/lrb+lrb                       2 / 2
   3 bfs_do beamer/auto+auto                   2 / 2
   3 bfs_do pull/auto+auto                     2 / 2
   3 bfs_do push/warp+warp                     2 / 2
   3 bfs_do beamer, small push/merge_path+warp 2 / 2
   3 bfs_do beamer, small push/auto+auto       2 / 2
   3 pagerank f32/thread                       2 / 2
   3 pagerank f32/group2                       2 / 2
   3 pagerank f32/warp                         2 / 2
   3 pagerank f32/group64                      2 / 2
   3 pagerank f32/block                        2 / 2
   3 pagerank f32/mean_group                   2 / 2
   3 pagerank f32/work_oriented                2 / 2
   3 pagerank f32/merge_path                   2 / 2
   3 pagerank f32/split                        2 / 2
   3 pagerank f32/hierarchical                 2 / 2
   3 pagerank f32/lrb                          2 / 2
   3 pagerank f32/auto                         2 / 2
   3 pagerank f32 L1 stop/warp                 2 / 2
   3 pagerank f64/thread                       2 / 2
   3 pagerank f64/group2                       2 / 2
   3 pagerank f64/warp                         2 / 2
   3 pagerank f64/group64                      2 / 2
   3 pagerank f64/block                        2 / 2
   3 pagerank f64/mean_group                   2 / 2
   3 pagerank f64/work_oriented                2 / 2
   3 pagerank f64/merge_path                   2 / 2
   3 pagerank f64/split                        2 / 2
   3 pagerank f64/hierarchical                 2 / 2
   3 pagerank f64/lrb                          2 / 2
   3 pagerank f64/auto                         2 / 2
   3 pagerank f64 L1 stop/warp                 2 / 2
   3 cc/thread                                 2 / 2
   3 cc/group2                                 2 / 2
   3 cc/warp                                   2 / 2
   3 cc/group64                                2 / 2
   3 cc/block                                  2 / 2
   3 cc/mean_group                             2 / 2
   3 cc/work_oriented                          2 / 2
   3 cc/merge_path                             2 / 2
   3 cc/split                                  2 / 2
   3 cc/hierarchical                           2 / 2
   3 cc/lrb                                    2 / 2
   3 cc/auto                                   2 / 2
   3 k-core/thread                             2 / 2
   3 k-core/group2                             2 / 2
   3 k-core/warp                               2 / 2
   3 k-core/group64                            2 / 2
   3 k-core/block                              2 / 2
   3 k-core/mean_group                         2 / 2
   3 k-core/work_oriented                      2 / 2
   3 k-core/merge_path                         2 / 2
   3 k-core/split                              2 / 2
   3 k-core/hierarchical                       2 / 2
   3 k-core/lrb                                2 / 2
   3 k-core/auto                               2 / 2
   3 tc/thread                                 2 / 2
   3 tc/group2                                 2 / 2
   3 tc/warp                                   2 / 2
   3 tc/group64                                2 / 2
   3 tc/block                                  2 / 2
   3 tc/mean_group                             2 / 2
   3 tc/work_oriented                          2 / 2
   3 tc/merge_path                             2 / 2
   3 tc/split                                  2 / 2
   3 tc/hierarchical                           2 / 2
   3 tc/lrb                                    2 / 2
   3 tc/auto                                   2 / 2
   3 ok
   3 test grids_and_a_road_network ... seed 1795870628497788996
   3 grid 24x14: source 180
   6 grid 24x14: 336 vertices, 1604 edges, 1 sources: 2.41 s
   6 kernel / schedule                         passed / run  (1 matrices)
   6 bfs_do beamer/thread+thread               1 / 1
   6 bfs_do pull/thread+thread                 1 / 1
   6 bfs_do beamer/group2+group2               1 / 1
   6 bfs_do pull/group2+group2                 1 / 1
   6 bfs_do beamer/warp+warp                   1 / 1
   6 bfs_do pull/warp+warp                     1 / 1
   6 bfs_do beamer/group64+group64             1 / 1
   6 bfs_do pull/group64+group64               1 / 1
   6 bfs_do beamer/block+block                 1 / 1
   6 bfs_do pull/block+block                   1 / 1
   6 bfs_do beamer/mean_group+warp             1 / 1
   6 bfs_do pull/mean_group+warp               1 / 1
   6 bfs_do beamer/work_oriented+warp          1 / 1
   6 bfs_do pull/work_oriented+warp            1 / 1
   6 bfs_do beamer/merge_path+warp             1 / 1
   6 bfs_do pull/merge_path+warp               1 / 1
   6 bfs_do beamer/split+warp                  1 / 1
   6 bfs_do pull/split+warp                    1 / 1
   6 bfs_do beamer/hierarchical+hierarchical   1 / 1
   6 bfs_do pull/hierarchical+hierarchical     1 / 1
   6 bfs_do beamer/lrb+lrb                     1 / 1
   6 bfs_do pull/lrb+lrb                       1 / 1
   6 bfs_do beamer/auto+auto                   1 / 1
   6 bfs_do pull/auto+auto                     1 / 1
   6 bfs_do push/warp+warp                     1 / 1
   6 bfs_do beamer, small push/merge_path+warp 1 / 1
   6 bfs_do beamer, small push/auto+auto       1 / 1
   6 pagerank f32/thread                       1 / 1
   6 pagerank f32/group2                       1 / 1
   6 pagerank f32/warp                         1 / 1
   6 pagerank f32/group64                      1 / 1
   6 pagerank f32/block                        1 / 1
   6 pagerank f32/mean_group                   1 / 1
   6 pagerank f32/work_oriented                1 / 1
   6 pagerank f32/merge_path                   1 / 1
   6 pagerank f32/split                        1 / 1
   6 pagerank f32/hierarchical                 1 / 1
   6 pagerank f32/lrb                          1 / 1
   6 pagerank f32/auto                         1 / 1
   6 pagerank f32 L1 stop/warp                 1 / 1
   6 pagerank f64/thread                       1 / 1
   6 pagerank f64/group2                       1 / 1
   6 pagerank f64/warp                         1 / 1
   6 pagerank f64/group64                      1 / 1
   6 pagerank f64/block                        1 / 1
   6 pagerank f64/mean_group                   1 / 1
   6 pagerank f64/work_oriented                1 / 1
   6 pagerank f64/merge_path                   1 / 1
   6 pagerank f64/split                        1 / 1
   6 pagerank f64/hierarchical                 1 / 1
   6 pagerank f64/lrb                          1 / 1
   6 pagerank f64/auto                         1 / 1
   6 pagerank f64 L1 stop/warp                 1 / 1
   6 cc/thread                                 1 / 1
   6 cc/group2                                 1 / 1
   6 cc/warp                                   1 / 1
   6 cc/group64                                1 / 1
   6 cc/block                                  1 / 1
   6 cc/mean_group                             1 / 1
   6 cc/work_oriented                          1 / 1
   6 cc/merge_path                             1 / 1
   6 cc/split                                  1 / 1
   6 cc/hierarchical                           1 / 1
   6 cc/lrb                                    1 / 1
   6 cc/auto                                   1 / 1
   6 k-core/thread                             1 / 1
   6 k-core/group2                             1 / 1
   6 k-core/warp                               1 / 1
   6 k-core/group64                            1 / 1
   6 k-core/block                              1 / 1
   6 k-core/mean_group                         1 / 1
   6 k-core/work_oriented                      1 / 1
   6 k-core/merge_path                         1 / 1
   6 k-core/split                              1 / 1
   6 k-core/hierarchical                       1 / 1
   6 k-core/lrb                                1 / 1
   6 k-core/auto                               1 / 1
   6 tc/thread                                 1 / 1
   6 tc/group2                                 1 / 1
   6 tc/warp                                   1 / 1
   6 tc/group64                                1 / 1
   6 tc/block                                  1 / 1
   6 tc/mean_group                             1 / 1
   6 tc/work_oriented                          1 / 1
   6 tc/merge_path                             1 / 1
   6 tc/split                                  1 / 1
   6 tc/hierarchical                           1 / 1
   6 tc/lrb                                    1 / 1
   6 tc/auto                                   1 / 1
   6 ok
   6 test grids_and_a_road_network_path ... seed 1795870631217553057
   6 grid 1x24: source 12
   7 grid 1x24: 24 vertices, 70 edges, 1 sources: 1.47 s
   7 kernel / schedule                         passed / run  (1 matrices)
   7 bfs_do beamer/thread+thread               1 / 1
   7 bfs_do pull/thread+thread                 1 / 1
   7 bfs_do beamer/group2+group2               1 / 1
   7 bfs_do pull/group2+group2                 1 / 1
   7 bfs_do beamer/warp+warp                   1 / 1
   7 bfs_do pull/warp+warp                     1 / 1
   7 bfs_do beamer/group64+group64             1 / 1
   7 bfs_do pull/group64+group64               1 / 1
   7 bfs_do beamer/block+block                 1 / 1
   7 bfs_do pull/block+block                   1 / 1
   7 bfs_do beamer/mean_group+warp             1 / 1
   7 bfs_do pull/mean_group+warp               1 / 1
   7 bfs_do beamer/work_oriented+warp          1 / 1
   7 bfs_do pull/work_oriented+warp            1 / 1
   7 bfs_do beamer/merge_path+warp             1 / 1
   7 bfs_do pull/merge_path+warp               1 / 1
   7 bfs_do beamer/split+warp                  1 / 1
   7 bfs_do pull/split+warp                    1 / 1
   7 bfs_do beamer/hierarchical+hierarchical   1 / 1
   7 bfs_do pull/hierarchical+hierarchical     1 / 1
   7 bfs_do beamer/lrb+lrb                     1 / 1
   7 bfs_do pull/lrb+lrb                       1 / 1
   7 bfs_do beamer/auto+auto                   1 / 1
   7 bfs_do pull/auto+auto                     1 / 1
   7 bfs_do push/warp+warp                     1 / 1
   7 bfs_do beamer, small push/merge_path+warp 1 / 1
   7 bfs_do beamer, small push/auto+auto       1 / 1
   7 pagerank f32/thread                       1 / 1
   7 pagerank f32/group2                       1 / 1
   7 pagerank f32/warp                         1 / 1
   7 pagerank f32/group64                      1 / 1
   7 pagerank f32/block                        1 / 1
   7 pagerank f32/mean_group                   1 / 1
   7 pagerank f32/work_oriented                1 / 1
   7 pagerank f32/merge_path                   1 / 1
   7 pagerank f32/split                        1 / 1
   7 pagerank f32/hierarchical                 1 / 1
   7 pagerank f32/lrb                          1 / 1
   7 pagerank f32/auto                         1 / 1
   7 pagerank f32 L1 stop/warp                 1 / 1
   7 pagerank f64/thread                       1 / 1
   7 pagerank f64/group2                       1 / 1
   7 pagerank f64/warp                         1 / 1
   7 pagerank f64/group64                      1 / 1
   7 pagerank f64/block                        1 / 1
   7 pagerank f64/mean_group                   1 / 1
   7 pagerank f64/work_oriented                1 / 1
   7 pagerank f64/merge_path                   1 / 1
   7 pagerank f64/split                        1 / 1
   7 pagerank f64/hierarchical                 1 / 1
   7 pagerank f64/lrb                          1 / 1
   7 pagerank f64/auto                         1 / 1
   7 pagerank f64 L1 stop/warp                 1 / 1
   7 cc/thread                                 1 / 1
   7 cc/group2                                 1 / 1
   7 cc/warp                                   1 / 1
   7 cc/group64                                1 / 1
   7 cc/block                                  1 / 1
   7 cc/mean_group                             1 / 1
   7 cc/work_oriented                          1 / 1
   7 cc/merge_path                             1 / 1
   7 cc/split                                  1 / 1
   7 cc/hierarchical                           1 / 1
   7 cc/lrb                                    1 / 1
   7 cc/auto                                   1 / 1
   7 k-core/thread                             1 / 1
   7 k-core/group2                             1 / 1
   7 k-core/warp                               1 / 1
   7 k-core/group64                            1 / 1
   7 k-core/block                              1 / 1
   7 k-core/mean_group                         1 / 1
   7 k-core/work_oriented                      1 / 1
   7 k-core/merge_path                         1 / 1
   7 k-core/split                              1 / 1
   7 k-core/hierarchical                       1 / 1
   7 k-core/lrb                                1 / 1
   7 k-core/auto                               1 / 1
   7 tc/thread                                 1 / 1
   7 tc/group2                                 1 / 1
   7 tc/warp                                   1 / 1
   7 tc/group64                                1 / 1
   7 tc/block                                  1 / 1
   7 tc/mean_group                             1 / 1
   7 tc/work_oriented                          1 / 1
   7 tc/merge_path                             1 / 1
   7 tc/split                                  1 / 1
   7 tc/hierarchical                           1 / 1
   7 tc/lrb                                    1 / 1
   7 tc/auto                                   1 / 1
   8 ok
   8 test grids_and_a_road_network_road ... seed 1795870633037508788
   8 road network 400: source 199
  23 road network 400: 400 vertices, 964 edges, 1 sources: 14.98 s
  23 kernel / schedule                         passed / run  (1 matrices)
  23 bfs_do beamer/thread+thread               1 / 1
  23 bfs_do pull/thread+thread                 1 / 1
  23 bfs_do beamer/group2+group2               1 / 1
  23 bfs_do pull/group2+group2                 1 / 1
  23 bfs_do beamer/warp+warp                   1 / 1
  23 bfs_do pull/warp+warp                     1 / 1
  23 bfs_do beamer/group64+group64             1 / 1
  23 bfs_do pull/group64+group64               1 / 1
  23 bfs_do beamer/block+block                 1 / 1
  23 bfs_do pull/block+block                   1 / 1
  23 bfs_do beamer/mean_group+warp             1 / 1
  23 bfs_do pull/mean_group+warp               1 / 1
  23 bfs_do beamer/work_oriented+warp          1 / 1
  23 bfs_do pull/work_oriented+warp            1 / 1
  23 bfs_do beamer/merge_path+warp             1 / 1
  23 bfs_do pull/merge_path+warp               1 / 1
  23 bfs_do beamer/split+warp                  1 / 1
  23 bfs_do pull/split+warp                    1 / 1
  23 bfs_do beamer/hierarchical+hierarchical   1 / 1
  23 bfs_do pull/hierarchical+hierarchical     1 / 1
  23 bfs_do beamer/lrb+lrb                     1 / 1
  23 bfs_do pull/lrb+lrb                       1 / 1
  23 bfs_do beamer/auto+auto                   1 / 1
  23 bfs_do pull/auto+auto                     1 / 1
  23 bfs_do push/warp+warp                     1 / 1
  23 bfs_do beamer, small push/merge_path+warp 1 / 1
  23 bfs_do beamer, small push/auto+auto       1 / 1
  23 pagerank f32/thread                       1 / 1
  23 pagerank f32/group2                       1 / 1
  23 pagerank f32/warp                         1 / 1
  23 pagerank f32/group64                      1 / 1
  23 pagerank f32/block                        1 / 1
  23 pagerank f32/mean_group                   1 / 1
  23 pagerank f32/work_oriented                1 / 1
  23 pagerank f32/merge_path                   1 / 1
  23 pagerank f32/split                        1 / 1
  23 pagerank f32/hierarchical                 1 / 1
  23 pagerank f32/lrb                          1 / 1
  23 pagerank f32/auto                         1 / 1
  23 pagerank f32 L1 stop/warp                 1 / 1
  23 pagerank f64/thread                       1 / 1
  23 pagerank f64/group2                       1 / 1
  23 pagerank f64/warp                         1 / 1
  23 pagerank f64/group64                      1 / 1
  23 pagerank f64/block                        1 / 1
  23 pagerank f64/mean_group                   1 / 1
  23 pagerank f64/work_oriented                1 / 1
  23 pagerank f64/merge_path                   1 / 1
  23 pagerank f64/split                        1 / 1
  23 pagerank f64/hierarchical                 1 / 1
  23 pagerank f64/lrb                          1 / 1
  23 pagerank f64/auto                         1 / 1
  23 pagerank f64 L1 stop/warp                 1 / 1
  23 cc/thread                                 1 / 1
  23 cc/group2                                 1 / 1
  23 cc/warp                                   1 / 1
  23 cc/group64                                1 / 1
  23 cc/block                                  1 / 1
  23 cc/mean_group                             1 / 1
  23 cc/work_oriented                          1 / 1
  23 cc/merge_path                             1 / 1
  23 cc/split                                  1 / 1
  23 cc/hierarchical                           1 / 1
  23 cc/lrb                                    1 / 1
  23 cc/auto                                   1 / 1
  23 k-core/thread                             1 / 1
  23 k-core/group2                             1 / 1
  23 k-core/warp                               1 / 1
  23 k-core/group64                            1 / 1
  23 k-core/block                              1 / 1
  23 k-core/mean_group                         1 / 1
  23 k-core/work_oriented                      1 / 1
  23 k-core/merge_path                         1 / 1
  23 k-core/split                              1 / 1
  23 k-core/hierarchical                       1 / 1
  23 k-core/lrb                                1 / 1
  23 k-core/auto                               1 / 1
  23 tc/thread                                 1 / 1
  23 tc/group2                                 1 / 1
  23 tc/warp                                   1 / 1
  23 tc/group64                                1 / 1
  23 tc/block                                  1 / 1
  23 tc/mean_group                             1 / 1
  23 tc/work_oriented                          1 / 1
  23 tc/merge_path                             1 / 1
  23 tc/split                                  1 / 1
  23 tc/hierarchical                           1 / 1
  23 tc/lrb                                    1 / 1
  23 tc/auto                                   1 / 1
  23 ok
  23 test isolated_vertices_and_small_graphs ... small with isolated vertices: source 0
  23 small with isolated vertices: source 5
  23 small with isolated vertices: source 10
  23 small with isolated vertices: source 12
  23 small with isolated vertices: source 13
  24 small with isolated vertices: 20 vertices, 16 edges, 5 sources: 0.43 s
  24 single vertex: source 0
  24 single vertex: 1 vertices, 0 edges, 1 sources: 0.15 s
  24 star + path: source 0
  24 star + path: source 20
  28 star + path: 1501 vertices, 1544 edges, 2 sources: 3.91 s
  28 kernel / schedule                         passed / run  (3 matrices)
  28 bfs_do beamer/thread+thread               8 / 8
  28 bfs_do pull/thread+thread                 8 / 8
  28 bfs_do beamer/group2+group2               8 / 8
  28 bfs_do pull/group2+group2                 8 / 8
  28 bfs_do beamer/warp+warp                   8 / 8
  28 bfs_do pull/warp+warp                     8 / 8
  28 bfs_do beamer/group64+group64             8 / 8
  28 bfs_do pull/group64+group64               8 / 8
  28 bfs_do beamer/block+block                 8 / 8
  28 bfs_do pull/block+block                   8 / 8
  28 bfs_do beamer/mean_group+warp             8 / 8
  28 bfs_do pull/mean_group+warp               8 / 8
  28 bfs_do beamer/work_oriented+warp          8 / 8
  28 bfs_do pull/work_oriented+warp            8 / 8
  28 bfs_do beamer/merge_path+warp             8 / 8
  28 bfs_do pull/merge_path+warp               8 / 8
  28 bfs_do beamer/split+warp                  8 / 8
  28 bfs_do pull/split+warp                    8 / 8
  28 bfs_do beamer/hierarchical+hierarchical   8 / 8
  28 bfs_do pull/hierarchical+hierarchical     8 / 8
  28 bfs_do beamer/lrb+lrb                     8 / 8
  28 bfs_do pull/lrb+lrb                       8 / 8
  28 bfs_do beamer/auto+auto                   8 / 8
  28 bfs_do pull/auto+auto                     8 / 8
  28 bfs_do push/warp+warp                     8 / 8
  28 bfs_do beamer, small push/merge_path+warp 8 / 8
  28 bfs_do beamer, small push/auto+auto       8 / 8
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
  28 ok
  28 test rmat_scale_14_symmetrised ... seed 1795870653768765291
  28 rmat 9 symmetrised: source 0
  40 rmat 9 symmetrised: 512 vertices, 9552 edges, 1 sources: 11.99 s
  40 kernel / schedule                         passed / run  (1 matrices)
  40 bfs_do beamer/thread+thread               1 / 1
  40 bfs_do pull/thread+thread                 1 / 1
  40 bfs_do beamer/group2+group2               1 / 1
  40 bfs_do pull/group2+group2                 1 / 1
  40 bfs_do beamer/warp+warp                   1 / 1
  40 bfs_do pull/warp+warp                     1 / 1
  40 bfs_do beamer/group64+group64             1 / 1
  40 bfs_do pull/group64+group64               1 / 1
  40 bfs_do beamer/block+block                 1 / 1
  40 bfs_do pull/block+block                   1 / 1
  40 bfs_do beamer/mean_group+warp             1 / 1
  40 bfs_do pull/mean_group+warp               1 / 1
  40 bfs_do beamer/work_oriented+warp          1 / 1
  40 bfs_do pull/work_oriented+warp            1 / 1
  40 bfs_do beamer/merge_path+warp             1 / 1
  40 bfs_do pull/merge_path+warp               1 / 1
  40 bfs_do beamer/split+warp                  1 / 1
  40 bfs_do pull/split+warp                    1 / 1
  40 bfs_do beamer/hierarchical+hierarchical   1 / 1
  40 bfs_do pull/hierarchical+hierarchical     1 / 1
  40 bfs_do beamer/lrb+lrb                     1 / 1
  40 bfs_do pull/lrb+lrb                       1 / 1
  40 bfs_do beamer/auto+auto                   1 / 1
  40 bfs_do pull/auto+auto                     1 / 1
  40 bfs_do push/warp+warp                     1 / 1
  40 bfs_do beamer, small push/merge_path+warp 1 / 1
  40 bfs_do beamer, small push/auto+auto       1 / 1
  40 pagerank f32/thread                       1 / 1
  40 pagerank f32/group2                       1 / 1
  40 pagerank f32/warp                         1 / 1
  40 pagerank f32/group64                      1 / 1
  40 pagerank f32/block                        1 / 1
  40 pagerank f32/mean_group                   1 / 1
  40 pagerank f32/work_oriented                1 / 1
  40 pagerank f32/merge_path                   1 / 1
  40 pagerank f32/split                        1 / 1
  40 pagerank f32/hierarchical                 1 / 1
  40 pagerank f32/lrb                          1 / 1
  40 pagerank f32/auto                         1 / 1
  40 pagerank f32 L1 stop/warp                 1 / 1
  40 pagerank f64/thread                       1 / 1
  40 pagerank f64/group2                       1 / 1
  40 pagerank f64/warp                         1 / 1
  40 pagerank f64/group64                      1 / 1
  40 pagerank f64/block                        1 / 1
  40 pagerank f64/mean_group                   1 / 1
  40 pagerank f64/work_oriented                1 / 1
  40 pagerank f64/merge_path                   1 / 1
  40 pagerank f64/split                        1 / 1
  40 pagerank f64/hierarchical                 1 / 1
  40 pagerank f64/lrb                          1 / 1
  40 pagerank f64/auto                         1 / 1
  40 pagerank f64 L1 stop/warp                 1 / 1
  40 cc/thread                                 1 / 1
  40 cc/group2                                 1 / 1
  40 cc/warp                                   1 / 1
  40 cc/group64                                1 / 1
  40 cc/block                                  1 / 1
  40 cc/mean_group                             1 / 1
  40 cc/work_oriented                          1 / 1
  40 cc/merge_path                             1 / 1
  40 cc/split                                  1 / 1
  40 cc/hierarchical                           1 / 1
  40 cc/lrb                                    1 / 1
  40 cc/auto                                   1 / 1
  40 k-core/thread                             1 / 1
  40 k-core/group2                             1 / 1
  40 k-core/warp                               1 / 1
  40 k-core/group64                            1 / 1
  40 k-core/block                              1 / 1
  40 k-core/mean_group                         1 / 1
  40 k-core/work_oriented                      1 / 1
  40 k-core/merge_path                         1 / 1
  40 k-core/split                              1 / 1
  40 k-core/hierarchical                       1 / 1
  40 k-core/lrb                                1 / 1
  40 k-core/auto                               1 / 1
  40 tc/thread                                 1 / 1
  40 tc/group2                                 1 / 1
  40 tc/warp                                   1 / 1
  40 tc/group64                                1 / 1
  40 tc/block                                  1 / 1
  40 tc/mean_group                             1 / 1
  40 tc/work_oriented                          1 / 1
  40 tc/merge_path                             1 / 1
  40 tc/split                                  1 / 1
  40 tc/hierarchical                           1 / 1
  40 tc/lrb                                    1 / 1
  40 tc/auto                                   1 / 1
  41 ok
  41 
  41 test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 40.99s
  41 
  41 ========= ERROR SUMMARY: 0 errors
  41 (end: exit 0)
