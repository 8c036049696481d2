"""The TensorFlow documentation sentence each rule rests on: ``rule id -> (page, quote)``.

Each quote is copied from the page (the API pages are generated from the
docstrings in TensorFlow's source, checked in TF 2.15, 2.20 and 2.21) and
checked there. ``deprecated-experimental`` quotes the deprecation note of the
call it found (see ``rules.code.DEPRECATED_OPS``).
"""
API = "https://www.tensorflow.org/api_docs/python/tf/data/Dataset"
GUIDE = "https://www.tensorflow.org/guide/data"
PERF = "https://www.tensorflow.org/guide/data_performance"

DOCS = {
    "shuffle-after-batch": (f"{API}#shuffle", "For perfect shuffling, a buffer size greater than or equal to the "
                            "full size of the dataset is required."),
    "small-shuffle-buffer": (f"{API}#shuffle", "For perfect shuffling, a buffer size greater than or equal to the "
                             "full size of the dataset is required."),
    "repeat-before-shuffle": (f"{GUIDE}#processing_multiple_epochs", "Dataset.shuffle doesn't signal the end of an "
                              "epoch until the shuffle buffer is empty."),
    "random-map-before-cache": (f"{API}#cache", "cache will produce exactly the same elements during each iteration "
                                "through the dataset."),
    "shuffle-before-cache": (f"{API}#cache", "If you wish to randomize the iteration order, make sure to call "
                             "shuffle after calling cache."),
    "cache-after-infinite-repeat": (f"{PERF}#caching", "When you cache a dataset, the transformations before the "
                                    "cache one (like the file opening and data reading) are executed only during "
                                    "the first epoch."),
    "cache-to-file": (f"{API}#cache", "Changing the input pipeline before the call to .cache() will have no effect "
                      "until the cache file is removed or the filename is changed."),
    "vectorizable-map-before-batch": (f"{PERF}#vectorizing_mapping", "Vectorize the user-defined function (that is, "
                                      "have it operate over a batch of inputs at once) and apply the batch "
                                      "transformation before the map transformation."),
    "map-not-parallel": ("https://www.tensorflow.org/api_docs/python/tf/data/experimental/OptimizationOptions",
                         "Whether to parallelize stateless map transformations."),
    "sequential-file-reading": ("https://www.tensorflow.org/api_docs/python/tf/data/TFRecordDataset",
                                "If None, files will be read sequentially."),
    "generator-source": (f"{API}#from_generator", "using from_generator will preclude the use of tf.data service "
                         "for scaling out dataset processing."),
    "python-before-service": (f"{API}#from_generator", "using from_generator will preclude the use of tf.data "
                              "service for scaling out dataset processing."),
    "python-random-in-map": (f"{API}#map", "tf.data traces the function and executes it as a graph."),
    "large-in-memory-source": (f"{GUIDE}#consuming_numpy_arrays", "can run into the 2GB limit for the "
                               "tf.GraphDef protocol buffer."),
    "deprecated-experimental": ("https://www.tensorflow.org/api_docs/python/tf/data/experimental", ""),
    "no-prefetch-at-end": (f"{PERF}#prefetching", "Prefetching overlaps the preprocessing and model execution of a "
                           "training step."),
    "split-after-reshuffle": (f"{API}#shuffle", "reshuffle_each_iteration: (Optional.) A boolean, which if true "
                              "indicates that the dataset should be pseudorandomly reshuffled each time it is "
                              "iterated over."),
    "input-bound": ("https://www.tensorflow.org/guide/data_performance_analysis", "If the calls return slowly, "
                    "tf.data is unable to keep up with the consumer's requests."),
    "input-keeps-up": ("https://www.tensorflow.org/guide/data_performance_analysis", "The input pipeline is not "
                       "your bottleneck"),
}
