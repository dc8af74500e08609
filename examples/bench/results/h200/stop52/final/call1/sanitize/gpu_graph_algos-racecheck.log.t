   0 ========= COMPUTE-SANITIZER
   0 
   0 running 6 tests
   1 test every_real_matrix ... seed 1795870439534107261
   1 karate.mtx: source 0
  24 karate.mtx: 34 vertices, 156 edges, 1 sources: 22.66 s
  24 west0067.mtx: source 0
  35 west0067.mtx: 67 vertices, 294 edges, 1 sources: 11.40 s
  35 kernel / schedule                         passed / run  (2 matrices)
  35 bfs_do beamer/thread+thread               2 / 2
  35 bfs_do pull/thread+thread                 2 / 2
  35 bfs_do beamer/group2+group2               2 / 2
  35 bfs_do pull/group2+group2                 2 / 2
  35 bfs_do beamer/warp+warp                   2 / 2
  35 bfs_do pull/warp+warp                     2 / 2
  35 bfs_do beamer/group64+group64             2 / 2
  35 bfs_do pull/group64+group64               2 / 2
  35 bfs_do beamer/block+block                 2 / 2
  35 bfs_do pull/block+block                   2 / 2
  35 bfs_do beamer/mean_group+warp             2 / 2
  35 bfs_do pull/mean_group+warp               2 / 2
  35 bfs_do beamer/work_oriented+warp          2 / 2
  35 bfs_do pull/work_oriented+warp            2 / 2
  35 bfs_do beamer/merge_path+warp             2 / 2
  35 bfs_do pull/merge_path+warp               2 / 2
  35 bfs_do beamer/split+warp                  2 / 2
  35 bfs_do pull/split+warp                    2 / 2
  35 bfs_do beamer/hierarchical+hierarchical   2 / 2
  35 bfs_do pull/hierarchical+hierarchical     2 / 2
  35 bfs_do beamer/lrb+lrb                     2 / 2
  35 bfs_do pull/lrb+lrb                       2 / 2
  35 bfs_do beamer/auto+auto                   2 / 2
  35 bfs_do pull/auto+auto                     2 / 2
  35 bfs_do push/warp+warp                     2 / 2
  35 bfs_do beamer, small push/merge_path+warp 2 / 2
  35 bfs_do beamer, small push/auto+auto       2 / 2
  35 pagerank f32/thread                       2 / 2
  35 pagerank f32/group2                       2 / 2
  35 pagerank f32/warp                         2 / 2
  35 pagerank f32/group64                      2 / 2
  35 pagerank f32/block                        2 / 2
  35 pagerank f32/mean_group                   2 / 2
  35 pagerank f32/work_oriented                2 / 2
  35 pagerank f32/merge_path                   2 / 2
  35 pagerank f32/split                        2 / 2
  35 pagerank f32/hierarchical                 2 / 2
  35 pagerank f32/lrb                          2 / 2
  35 pagerank f32/auto                         2 / 2
  35 pagerank f32 L1 stop/warp                 2 / 2
  35 pagerank f64/thread                       2 / 2
  35 pagerank f64/group2                       2 / 2
  35 pagerank f64/warp                         2 / 2
  35 pagerank f64/group64                      2 / 2
  35 pagerank f64/block                        2 / 2
  35 pagerank f64/mean_group                   2 / 2
  35 pagerank f64/work_oriented                2 / 2
  35 pagerank f64/merge_path                   2 / 2
  35 pagerank f64/split                        2 / 2
  35 pagerank f64/hierarchical                 2 / 2
  35 pagerank f64/lrb                          2 / 2
  35 pagerank f64/auto                         2 / 2
  35 pagerank f64 L1 stop/warp                 2 / 2
  35 cc/thread                                 2 / 2
  35 cc/group2                                 2 / 2
  35 cc/warp                                   2 / 2
  35 cc/group64                                2 / 2
  35 cc/block                                  2 / 2
  35 cc/mean_group                             2 / 2
  35 cc/work_oriented                          2 / 2
  35 cc/merge_path                             2 / 2
  35 cc/split                                  2 / 2
  35 cc/hierarchical                           2 / 2
  35 cc/lrb                                    2 / 2
  35 cc/auto                                   2 / 2
  35 k-core/thread                             2 / 2
  35 k-core/group2                             2 / 2
  35 k-core/warp                               2 / 2
  35 k-core/group64                            2 / 2
  35 k-core/block                              2 / 2
  35 k-core/mean_group                         2 / 2
  35 k-core/work_oriented                      2 / 2
  35 k-core/merge_path                         2 / 2
  35 k-core/split                              2 / 2
  35 k-core/hierarchical                       2 / 2
  35 k-core/lrb                                2 / 2
  35 k-core/auto                               2 / 2
  35 tc/thread                                 2 / 2
  35 tc/group2                                 2 / 2
  35 tc/warp                                   2 / 2
  35 tc/group64                                2 / 2
  35 tc/block                                  2 / 2
  35 tc/mean_group                             2 / 2
  35 tc/work_oriented                          2 / 2
  35 tc/merge_path                             2 / 2
  35 tc/split                                  2 / 2
  35 tc/hierarchical                           2 / 2
  35 tc/lrb                                    2 / 2
  35 tc/auto                                   2 / 2
  36 ok
  36 test grids_and_a_road_network ... seed 1795870474577259920
  37 grid 24x14: source 180
  61 grid 24x14: 336 vertices, 1604 edges, 1 sources: 23.84 s
  61 kernel / schedule                         passed / run  (1 matrices)
  61 bfs_do beamer/thread+thread               1 / 1
  61 bfs_do pull/thread+thread                 1 / 1
  61 bfs_do beamer/group2+group2               1 / 1
  61 bfs_do pull/group2+group2                 1 / 1
  61 bfs_do beamer/warp+warp                   1 / 1
  61 bfs_do pull/warp+warp                     1 / 1
  61 bfs_do beamer/group64+group64             1 / 1
  61 bfs_do pull/group64+group64               1 / 1
  61 bfs_do beamer/block+block                 1 / 1
  61 bfs_do pull/block+block                   1 / 1
  61 bfs_do beamer/mean_group+warp             1 / 1
  61 bfs_do pull/mean_group+warp               1 / 1
  61 bfs_do beamer/work_oriented+warp          1 / 1
  61 bfs_do pull/work_oriented+warp            1 / 1
  61 bfs_do beamer/merge_path+warp             1 / 1
  61 bfs_do pull/merge_path+warp               1 / 1
  61 bfs_do beamer/split+warp                  1 / 1
  61 bfs_do pull/split+warp                    1 / 1
  61 bfs_do beamer/hierarchical+hierarchical   1 / 1
  61 bfs_do pull/hierarchical+hierarchical     1 / 1
  61 bfs_do beamer/lrb+lrb                     1 / 1
  61 bfs_do pull/lrb+lrb                       1 / 1
  61 bfs_do beamer/auto+auto                   1 / 1
  61 bfs_do pull/auto+auto                     1 / 1
  61 bfs_do push/warp+warp                     1 / 1
  61 bfs_do beamer, small push/merge_path+warp 1 / 1
  61 bfs_do beamer, small push/auto+auto       1 / 1
  61 pagerank f32/thread                       1 / 1
  61 pagerank f32/group2                       1 / 1
  61 pagerank f32/warp                         1 / 1
  61 pagerank f32/group64                      1 / 1
  61 pagerank f32/block                        1 / 1
  61 pagerank f32/mean_group                   1 / 1
  61 pagerank f32/work_oriented                1 / 1
  61 pagerank f32/merge_path                   1 / 1
  61 pagerank f32/split                        1 / 1
  61 pagerank f32/hierarchical                 1 / 1
  61 pagerank f32/lrb                          1 / 1
  61 pagerank f32/auto                         1 / 1
  61 pagerank f32 L1 stop/warp                 1 / 1
  61 pagerank f64/thread                       1 / 1
  61 pagerank f64/group2                       1 / 1
  61 pagerank f64/warp                         1 / 1
  61 pagerank f64/group64                      1 / 1
  61 pagerank f64/block                        1 / 1
  61 pagerank f64/mean_group                   1 / 1
  61 pagerank f64/work_oriented                1 / 1
  61 pagerank f64/merge_path                   1 / 1
  61 pagerank f64/split                        1 / 1
  61 pagerank f64/hierarchical                 1 / 1
  61 pagerank f64/lrb                          1 / 1
  61 pagerank f64/auto                         1 / 1
  61 pagerank f64 L1 stop/warp                 1 / 1
  61 cc/thread                                 1 / 1
  61 cc/group2                                 1 / 1
  61 cc/warp                                   1 / 1
  61 cc/group64                                1 / 1
  61 cc/block                                  1 / 1
  61 cc/mean_group                             1 / 1
  61 cc/work_oriented                          1 / 1
  61 cc/merge_path                             1 / 1
  61 cc/split                                  1 / 1
  61 cc/hierarchical                           1 / 1
  61 cc/lrb                                    1 / 1
  61 cc/auto                                   1 / 1
  61 k-core/thread                             1 / 1
  61 k-core/group2                             1 / 1
  61 k-core/warp                               1 / 1
  61 k-core/group64                            1 / 1
  61 k-core/block                              1 / 1
  61 k-core/mean_group                         1 / 1
  61 k-core/work_oriented                      1 / 1
  61 k-core/merge_path                         1 / 1
  61 k-core/split                              1 / 1
  61 k-core/hierarchical                       1 / 1
  61 k-core/lrb                                1 / 1
  61 k-core/auto                               1 / 1
  61 tc/thread                                 1 / 1
  61 tc/group2                                 1 / 1
  61 tc/warp                                   1 / 1
  61 tc/group64                                1 / 1
  61 tc/block                                  1 / 1
  61 tc/mean_group                             1 / 1
  61 tc/work_oriented                          1 / 1
  61 tc/merge_path                             1 / 1
  61 tc/split                                  1 / 1
  61 tc/hierarchical                           1 / 1
  61 tc/lrb                                    1 / 1
  61 tc/auto                                   1 / 1
  61 ok
  61 test grids_and_a_road_network_path ... seed 1795870499968961333
  62 grid 1x24: source 12
  76 grid 1x24: 24 vertices, 70 edges, 1 sources: 14.01 s
  76 kernel / schedule                         passed / run  (1 matrices)
  76 bfs_do beamer/thread+thread               1 / 1
  76 bfs_do pull/thread+thread                 1 / 1
  76 bfs_do beamer/group2+group2               1 / 1
  76 bfs_do pull/group2+group2                 1 / 1
  76 bfs_do beamer/warp+warp                   1 / 1
  76 bfs_do pull/warp+warp                     1 / 1
  76 bfs_do beamer/group64+group64             1 / 1
  76 bfs_do pull/group64+group64               1 / 1
  76 bfs_do beamer/block+block                 1 / 1
  76 bfs_do pull/block+block                   1 / 1
  76 bfs_do beamer/mean_group+warp             1 / 1
  76 bfs_do pull/mean_group+warp               1 / 1
  76 bfs_do beamer/work_oriented+warp          1 / 1
  76 bfs_do pull/work_oriented+warp            1 / 1
  76 bfs_do beamer/merge_path+warp             1 / 1
  76 bfs_do pull/merge_path+warp               1 / 1
  76 bfs_do beamer/split+warp                  1 / 1
  76 bfs_do pull/split+warp                    1 / 1
  76 bfs_do beamer/hierarchical+hierarchical   1 / 1
  76 bfs_do pull/hierarchical+hierarchical     1 / 1
  76 bfs_do beamer/lrb+lrb                     1 / 1
  76 bfs_do pull/lrb+lrb                       1 / 1
  76 bfs_do beamer/auto+auto                   1 / 1
  76 bfs_do pull/auto+auto                     1 / 1
  76 bfs_do push/warp+warp                     1 / 1
  76 bfs_do beamer, small push/merge_path+warp 1 / 1
  76 bfs_do beamer, small push/auto+auto       1 / 1
  76 pagerank f32/thread                       1 / 1
  76 pagerank f32/group2                       1 / 1
  76 pagerank f32/warp                         1 / 1
  76 pagerank f32/group64                      1 / 1
  76 pagerank f32/block                        1 / 1
  76 pagerank f32/mean_group                   1 / 1
  76 pagerank f32/work_oriented                1 / 1
  76 pagerank f32/merge_path                   1 / 1
  76 pagerank f32/split                        1 / 1
  76 pagerank f32/hierarchical                 1 / 1
  76 pagerank f32/lrb                          1 / 1
  76 pagerank f32/auto                         1 / 1
  76 pagerank f32 L1 stop/warp                 1 / 1
  76 pagerank f64/thread                       1 / 1
  76 pagerank f64/group2                       1 / 1
  76 pagerank f64/warp                         1 / 1
  76 pagerank f64/group64                      1 / 1
  76 pagerank f64/block                        1 / 1
  76 pagerank f64/mean_group                   1 / 1
  76 pagerank f64/work_oriented                1 / 1
  76 pagerank f64/merge_path                   1 / 1
  76 pagerank f64/split                        1 / 1
  76 pagerank f64/hierarchical                 1 / 1
  76 pagerank f64/lrb                          1 / 1
  76 pagerank f64/auto                         1 / 1
  76 pagerank f64 L1 stop/warp                 1 / 1
  76 cc/thread                                 1 / 1
  76 cc/group2                                 1 / 1
  76 cc/warp                                   1 / 1
  76 cc/group64                                1 / 1
  76 cc/block                                  1 / 1
  76 cc/mean_group                             1 / 1
  76 cc/work_oriented                          1 / 1
  76 cc/merge_path                             1 / 1
  76 cc/split                                  1 / 1
  76 cc/hierarchical                           1 / 1
  76 cc/lrb                                    1 / 1
  76 cc/auto                                   1 / 1
  76 k-core/thread                             1 / 1
  76 k-core/group2                             1 / 1
  76 k-core/warp                               1 / 1
  76 k-core/group64                            1 / 1
  76 k-core/block                              1 / 1
  76 k-core/mean_group                         1 / 1
  76 k-core/work_oriented                      1 / 1
  76 k-core/merge_path                         1 / 1
  76 k-core/split                              1 / 1
  76 k-core/hierarchical                       1 / 1
  76 k-core/lrb                                1 / 1
  76 k-core/auto                               1 / 1
  76 tc/thread                                 1 / 1
  76 tc/group2                                 1 / 1
  76 tc/warp                                   1 / 1
  76 tc/group64                                1 / 1
  76 tc/block                                  1 / 1
  76 tc/mean_group                             1 / 1
  76 tc/work_oriented                          1 / 1
  76 tc/merge_path                             1 / 1
  76 tc/split                                  1 / 1
  76 tc/hierarchical                           1 / 1
  76 tc/lrb                                    1 / 1
  76 tc/auto                                   1 / 1
  77 ok
  77 test grids_and_a_road_network_road ... seed 1795870515837888160
  78 road network 400: source 199
 101 road network 400: 400 vertices, 864 edges, 1 sources: 23.26 s
 101 kernel / schedule                         passed / run  (1 matrices)
 101 bfs_do beamer/thread+thread               1 / 1
 101 bfs_do pull/thread+thread                 1 / 1
 101 bfs_do beamer/group2+group2               1 / 1
 101 bfs_do pull/group2+group2                 1 / 1
 101 bfs_do beamer/warp+warp                   1 / 1
 101 bfs_do pull/warp+warp                     1 / 1
 101 bfs_do beamer/group64+group64             1 / 1
 101 bfs_do pull/group64+group64               1 / 1
 101 bfs_do beamer/block+block                 1 / 1
 101 bfs_do pull/block+block                   1 / 1
 101 bfs_do beamer/mean_group+warp             1 / 1
 101 bfs_do pull/mean_group+warp               1 / 1
 101 bfs_do beamer/work_oriented+warp          1 / 1
 101 bfs_do pull/work_oriented+warp            1 / 1
 101 bfs_do beamer/merge_path+warp             1 / 1
 101 bfs_do pull/merge_path+warp               1 / 1
 101 bfs_do beamer/split+warp                  1 / 1
 101 bfs_do pull/split+warp                    1 / 1
 101 bfs_do beamer/hierarchical+hierarchical   1 / 1
 101 bfs_do pull/hierarchical+hierarchical     1 / 1
 101 bfs_do beamer/lrb+lrb                     1 / 1
 101 bfs_do pull/lrb+lrb                       1 / 1
 101 bfs_do beamer/auto+auto                   1 / 1
 101 bfs_do pull/auto+auto                     1 / 1
 101 bfs_do push/warp+warp                     1 / 1
 101 bfs_do beamer, small push/merge_path+warp 1 / 1
 101 bfs_do beamer, small push/auto+auto       1 / 1
 101 pagerank f32/thread                       1 / 1
 101 pagerank f32/group2                       1 / 1
 101 pagerank f32/warp                         1 / 1
 101 pagerank f32/group64                      1 / 1
 101 pagerank f32/block                        1 / 1
 101 pagerank f32/mean_group                   1 / 1
 101 pagerank f32/work_oriented                1 / 1
 101 pagerank f32/merge_path                   1 / 1
 101 pagerank f32/split                        1 / 1
 101 pagerank f32/hierarchical                 1 / 1
 101 pagerank f32/lrb                          1 / 1
 101 pagerank f32/auto                         1 / 1
 101 pagerank f32 L1 stop/warp                 1 / 1
 101 pagerank f64/thread                       1 / 1
 101 pagerank f64/group2                       1 / 1
 101 pagerank f64/warp                         1 / 1
 101 pagerank f64/group64                      1 / 1
 101 pagerank f64/block                        1 / 1
 101 pagerank f64/mean_group                   1 / 1
 101 pagerank f64/work_oriented                1 / 1
 101 pagerank f64/merge_path                   1 / 1
 101 pagerank f64/split                        1 / 1
 101 pagerank f64/hierarchical                 1 / 1
 101 pagerank f64/lrb                          1 / 1
 101 pagerank f64/auto                         1 / 1
 101 pagerank f64 L1 stop/warp                 1 / 1
 101 cc/thread                                 1 / 1
 101 cc/group2                                 1 / 1
 101 cc/warp                                   1 / 1
 101 cc/group64                                1 / 1
 101 cc/block                                  1 / 1
 101 cc/mean_group                             1 / 1
 101 cc/work_oriented                          1 / 1
 101 cc/merge_path                             1 / 1
 101 cc/split                                  1 / 1
 101 cc/hierarchical                           1 / 1
 101 cc/lrb                                    1 / 1
 101 cc/auto                                   1 / 1
 101 k-core/thread                             1 / 1
 101 k-core/group2                             1 / 1
 101 k-core/warp                               1 / 1
 101 k-core/group64                            1 / 1
 101 k-core/block                              1 / 1
 101 k-core/mean_group                         1 / 1
 101 k-core/work_oriented                      1 / 1
 101 k-core/merge_path                         1 / 1
 101 k-core/split                              1 / 1
 101 k-core/hierarchical                       1 / 1
 101 k-core/lrb                                1 / 1
 101 k-core/auto                               1 / 1
 101 tc/thread                                 1 / 1
 101 tc/group2                                 1 / 1
 101 tc/warp                                   1 / 1
 101 tc/group64                                1 / 1
 101 tc/block                                  1 / 1
 101 tc/mean_group                             1 / 1
 101 tc/work_oriented                          1 / 1
 101 tc/merge_path                             1 / 1
 101 tc/split                                  1 / 1
 101 tc/hierarchical                           1 / 1
 101 tc/lrb                                    1 / 1
 101 tc/auto                                   1 / 1
 102 ok
 103 test isolated_vertices_and_small_graphs ... small with isolated vertices: source 0
 106 small with isolated vertices: source 5
 107 small with isolated vertices: source 10
 109 small with isolated vertices: source 12
 111 small with isolated vertices: source 13
 119 small with isolated vertices: 20 vertices, 16 edges, 5 sources: 15.52 s
 119 single vertex: source 0
 122 single vertex: 1 vertices, 0 edges, 1 sources: 3.64 s
 122 star + path: source 0
 127 star + path: source 20
 152 star + path: 1501 vertices, 1544 edges, 2 sources: 30.01 s
 152 kernel / schedule                         passed / run  (3 matrices)
 152 bfs_do beamer/thread+thread               8 / 8
 152 bfs_do pull/thread+thread                 8 / 8
 152 bfs_do beamer/group2+group2               8 / 8
 152 bfs_do pull/group2+group2                 8 / 8
 152 bfs_do beamer/warp+warp                   8 / 8
 152 bfs_do pull/warp+warp                     8 / 8
 152 bfs_do beamer/group64+group64             8 / 8
 152 bfs_do pull/group64+group64               8 / 8
 152 bfs_do beamer/block+block                 8 / 8
 152 bfs_do pull/block+block                   8 / 8
 152 bfs_do beamer/mean_group+warp             8 / 8
 152 bfs_do pull/mean_group+warp               8 / 8
 152 bfs_do beamer/work_oriented+warp          8 / 8
 152 bfs_do pull/work_oriented+warp            8 / 8
 152 bfs_do beamer/merge_path+warp             8 / 8
 152 bfs_do pull/merge_path+warp               8 / 8
 152 bfs_do beamer/split+warp                  8 / 8
 152 bfs_do pull/split+warp                    8 / 8
 152 bfs_do beamer/hierarchical+hierarchical   8 / 8
 152 bfs_do pull/hierarchical+hierarchical     8 / 8
 152 bfs_do beamer/lrb+lrb                     8 / 8
 152 bfs_do pull/lrb+lrb                       8 / 8
 152 bfs_do beamer/auto+auto                   8 / 8
 152 bfs_do pull/auto+auto                     8 / 8
 152 bfs_do push/warp+warp                     8 / 8
 152 bfs_do beamer, small push/merge_path+warp 8 / 8
 152 bfs_do beamer, small push/auto+auto       8 / 8
 152 pagerank f32/thread                       3 / 3
 152 pagerank f32/group2                       3 / 3
 152 pagerank f32/warp                         3 / 3
 152 pagerank f32/group64                      3 / 3
 152 pagerank f32/block                        3 / 3
 152 pagerank f32/mean_group                   3 / 3
 152 pagerank f32/work_oriented                3 / 3
 152 pagerank f32/merge_path                   3 / 3
 152 pagerank f32/split                        3 / 3
 152 pagerank f32/hierarchical                 3 / 3
 152 pagerank f32/lrb                          3 / 3
 152 pagerank f32/auto                         3 / 3
 152 pagerank f32 L1 stop/warp                 3 / 3
 152 pagerank f64/thread                       3 / 3
 152 pagerank f64/group2                       3 / 3
 152 pagerank f64/warp                         3 / 3
 152 pagerank f64/group64                      3 / 3
 152 pagerank f64/block                        3 / 3
 152 pagerank f64/mean_group                   3 / 3
 152 pagerank f64/work_oriented                3 / 3
 152 pagerank f64/merge_path                   3 / 3
 152 pagerank f64/split                        3 / 3
 152 pagerank f64/hierarchical                 3 / 3
 152 pagerank f64/lrb                          3 / 3
 152 pagerank f64/auto                         3 / 3
 152 pagerank f64 L1 stop/warp                 3 / 3
 152 cc/thread                                 3 / 3
 152 cc/group2                                 3 / 3
 152 cc/warp                                   3 / 3
 152 cc/group64                                3 / 3
 152 cc/block                                  3 / 3
 152 cc/mean_group                             3 / 3
 152 cc/work_oriented                          3 / 3
 152 cc/merge_path                             3 / 3
 152 cc/split                                  3 / 3
 152 cc/hierarchical                           3 / 3
 152 cc/lrb                                    3 / 3
 152 cc/auto                                   3 / 3
 152 k-core/thread                             3 / 3
 152 k-core/group2                             3 / 3
 152 k-core/warp                               3 / 3
 152 k-core/group64                            3 / 3
 152 k-core/block                              3 / 3
 152 k-core/mean_group                         3 / 3
 152 k-core/work_oriented                      3 / 3
 152 k-core/merge_path                         3 / 3
 152 k-core/split                              3 / 3
 152 k-core/hierarchical                       3 / 3
 152 k-core/lrb                                3 / 3
 152 k-core/auto                               3 / 3
 152 tc/thread                                 3 / 3
 152 tc/group2                                 3 / 3
 152 tc/warp                                   3 / 3
 152 tc/group64                                3 / 3
 152 tc/block                                  3 / 3
 152 tc/mean_group                             3 / 3
 152 tc/work_oriented                          3 / 3
 152 tc/merge_path                             3 / 3
 152 tc/split                                  3 / 3
 152 tc/hierarchical                           3 / 3
 152 tc/lrb                                    3 / 3
 152 tc/auto                                   3 / 3
 152 ok
 153 test rmat_scale_14_symmetrised ... seed 1795870591845779515
 153 rmat 9 symmetrised: source 0
 186 rmat 9 symmetrised: 512 vertices, 9642 edges, 1 sources: 32.80 s
 186 kernel / schedule                         passed / run  (1 matrices)
 186 bfs_do beamer/thread+thread               1 / 1
 186 bfs_do pull/thread+thread                 1 / 1
 186 bfs_do beamer/group2+group2               1 / 1
 186 bfs_do pull/group2+group2                 1 / 1
 186 bfs_do beamer/warp+warp                   1 / 1
 186 bfs_do pull/warp+warp                     1 / 1
 186 bfs_do beamer/group64+group64             1 / 1
 186 bfs_do pull/group64+group64               1 / 1
 186 bfs_do beamer/block+block                 1 / 1
 186 bfs_do pull/block+block                   1 / 1
 186 bfs_do beamer/mean_group+warp             1 / 1
 186 bfs_do pull/mean_group+warp               1 / 1
 186 bfs_do beamer/work_oriented+warp          1 / 1
 186 bfs_do pull/work_oriented+warp            1 / 1
 186 bfs_do beamer/merge_path+warp             1 / 1
 186 bfs_do pull/merge_path+warp               1 / 1
 186 bfs_do beamer/split+warp                  1 / 1
 186 bfs_do pull/split+warp                    1 / 1
 186 bfs_do beamer/hierarchical+hierarchical   1 / 1
 186 bfs_do pull/hierarchical+hierarchical     1 / 1
 186 bfs_do beamer/lrb+lrb                     1 / 1
 186 bfs_do pull/lrb+lrb                       1 / 1
 186 bfs_do beamer/auto+auto                   1 / 1
 186 bfs_do pull/auto+auto                     1 / 1
 186 bfs_do push/warp+warp                     1 / 1
 186 bfs_do beamer, small push/merge_path+warp 1 / 1
 186 bfs_do beamer, small push/auto+auto       1 / 1
 186 pagerank f32/thread                       1 / 1
 186 pagerank f32/group2                       1 / 1
 186 pagerank f32/warp                         1 / 1
 186 pagerank f32/group64                      1 / 1
 186 pagerank f32/block                        1 / 1
 186 pagerank f32/mean_group                   1 / 1
 186 pagerank f32/work_oriented                1 / 1
 186 pagerank f32/merge_path                   1 / 1
 186 pagerank f32/split                        1 / 1
 186 pagerank f32/hierarchical                 1 / 1
 186 pagerank f32/lrb                          1 / 1
 186 pagerank f32/auto                         1 / 1
 186 pagerank f32 L1 stop/warp                 1 / 1
 186 pagerank f64/thread                       1 / 1
 186 pagerank f64/group2                       1 / 1
 186 pagerank f64/warp                         1 / 1
 186 pagerank f64/group64                      1 / 1
 186 pagerank f64/block                        1 / 1
 186 pagerank f64/mean_group                   1 / 1
 186 pagerank f64/work_oriented                1 / 1
 186 pagerank f64/merge_path                   1 / 1
 186 pagerank f64/split                        1 / 1
 186 pagerank f64/hierarchical                 1 / 1
 186 pagerank f64/lrb                          1 / 1
 186 pagerank f64/auto                         1 / 1
 186 pagerank f64 L1 stop/warp                 1 / 1
 186 cc/thread                                 1 / 1
 186 cc/group2                                 1 / 1
 186 cc/warp                                   1 / 1
 186 cc/group64                                1 / 1
 186 cc/block                                  1 / 1
 186 cc/mean_group                             1 / 1
 186 cc/work_oriented                          1 / 1
 186 cc/merge_path                             1 / 1
 186 cc/split                                  1 / 1
 186 cc/hierarchical                           1 / 1
 186 cc/lrb                                    1 / 1
 186 cc/auto                                   1 / 1
 186 k-core/thread                             1 / 1
 186 k-core/group2                             1 / 1
 186 k-core/warp                               1 / 1
 186 k-core/group64                            1 / 1
 186 k-core/block                              1 / 1
 186 k-core/mean_group                         1 / 1
 186 k-core/work_oriented                      1 / 1
 186 k-core/merge_path                         1 / 1
 186 k-core/split                              1 / 1
 186 k-core/hierarchical                       1 / 1
 186 k-core/lrb                                1 / 1
 186 k-core/auto                               1 / 1
 186 tc/thread                                 1 / 1
 186 tc/group2                                 1 / 1
 186 tc/warp                                   1 / 1
 186 tc/group64                                1 / 1
 186 tc/block                                  1 / 1
 186 tc/mean_group                             1 / 1
 186 tc/work_oriented                          1 / 1
 186 tc/merge_path                             1 / 1
 186 tc/split                                  1 / 1
 186 tc/hierarchical                           1 / 1
 186 tc/lrb                                    1 / 1
 186 tc/auto                                   1 / 1
 186 ok
 186 
 186 test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 186.82s
 186 
 187 ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
 187 (end: exit 0)
