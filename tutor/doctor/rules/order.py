"""Rules about order: shuffling, repeating, caching and splitting in the wrong place."""
from __future__ import annotations

from ...i18n import N_, join_sentences
from ...i18n import gettext as _
from ..registry import API, GUIDE, PERF, PIPELINE, Found, rule
from ..sizes import elements_per_pass
from ..stage import Stage
from .walk import downstream, finite_take, finite_zip, infinite_repeat, is_, random_map, repeats, reshuffles, upstream

#: A shuffle buffer under this fraction of a dataset of known size counts as "small".
SMALL_BUFFER_FRACTION = 0.1
#: When the size cannot be read (generators, filter, remote files), the doctor assumes at least this many elements.
TINY_BUFFER = 1000
#: Numbers people pass as seeds: ``shuffle(42)`` is a buffer of 42, not a seed.
COMMON_SEEDS = frozenset({0, 1, 7, 13, 21, 42, 123, 1234, 1337, 2020, 2021, 2022, 2023, 2024, 2025, 12345})
_SHUFFLES = ("shuffle", "shuffle_and_repeat")
#: small-shuffle-buffer's first sentence, by (behind a repeat, size counted from the files).
_BUFFER_HOLDS = {
    (False, False): N_("The buffer holds {buffer} of the {size} elements that reach it ({percent:.1f}%)."),
    (True, False): N_("The buffer holds {buffer} of the {size} elements that reach it per pass (behind the repeat) "
                      "({percent:.1f}%)."),
    (False, True): N_("The buffer holds {buffer} of the {size} elements that reach it (the doctor counted the "
                      "records of its files) ({percent:.1f}%)."),
    (True, True): N_("The buffer holds {buffer} of the {size} elements that reach it per pass (behind the repeat) "
                     "(the doctor counted the records of its files) ({percent:.1f}%)."),
}


def _between(lower: Stage, upper: Stage) -> list[Stage]:
    """The stages on the first-input path from ``upper`` up to (not including) ``lower``."""
    path, s = [], upper.inputs[0] if upper.inputs else None
    while s is not None and s is not lower:
        path.append(s)
        s = s.inputs[0] if s.inputs else None
    return path if s is lower else []


def _leading_dims(stage: Stage) -> set | None:
    try:
        import tensorflow as tf

        specs = tf.nest.flatten(stage.dataset.element_spec)
        return {(s.shape[0] if s.shape.rank else "scalar") for s in specs}
    except Exception:
        return None


def _consumes_batch(m: Stage, batch: Stage) -> bool:
    """A map after ``batch`` that turns the batch axis into something else (sequences split into input, target).

    A map that keeps the batch axis (a spectrogram of every clip of the batch, ``x[..., tf.newaxis]``) leaves
    batches: the leading dimension of its output is that of the batch.
    """
    if m.kind not in ("map", "flat_map"):
        return False
    before, after = _leading_dims(batch), _leading_dims(m)
    if before and after and len(before) == 1 and None not in before:
        return not after <= before  # the batch size is known: a map that keeps it keeps the batches
    return m.splits_first_axis


@rule("shuffle-after-batch", severity="wrong", on="shuffle", skip_library=True,
      summary=N_("A shuffle fed by batches (the same examples always share a batch), or by batches a cache froze."),
      why=N_("Shuffling batches only changes the order of the batches: the model sees the same groups of examples "
             "every epoch."),
      fix=N_("Shuffle the examples before batch(), and cache before the shuffle: ds.cache().shuffle(n).batch(b)."),
      doc=f"{API}#shuffle", quote="For perfect shuffling, a buffer size greater than or equal to the full size of "
      "the dataset is required.",
      example='tf.data.Dataset.range(100).batch(10).shuffle(10)',
      fixed='tf.data.Dataset.range(100).shuffle(100).batch(10)')
def shuffle_after_batch(s: Stage) -> Found | None:
    batch = upstream(s, is_("batch"), stop=is_("unbatch", *_SHUFFLES))
    if batch is None or any(_consumes_batch(m, batch) for m in _between(batch, s)):
        return None  # the batches are sequences the map took apart: shuffling them is right
    earlier = upstream(batch, reshuffles, stop=is_("unbatch"))
    cache = upstream(s, is_("cache"), stop=lambda u: u is earlier or u.kind == "unbatch") if earlier else None
    if earlier is not None and (cache is None or upstream(cache, lambda u: u is earlier) is None):
        return None  # examples were shuffled before batching, and nothing froze that
    if cache is not None:
        return Found(
            _("The examples were shuffled at {shuffle} and then batched, but {cache} stores the first epoch's "
              "batches and replays them: every epoch sees the same batches, only in a new order.").format(
                shuffle=earlier.where, cache=cache.where),
            _("Cache before the shuffle and batch (ds.cache().shuffle(n).batch(b)); with a Keras utility that batches "
              "for you, pass batch_size=None, or unbatch() before cache() and batch again after the shuffle."))
    return Found(
        _("It comes after {batch}, so it shuffles whole batches: the same examples always share a batch, and only "
          "the order of the batches changes.").format(batch=batch.where),
        _("Shuffle the examples before batching: ds.shuffle(...).batch({batch_size}).").format(
            batch_size=batch.params.get('batch_size', '...')))


@rule("small-shuffle-buffer", severity="wrong", on="shuffle", skip_library=True,
      summary=N_("A shuffle buffer under 10% of the elements that reach it (read from the cardinality or by counting "
                 "the lines or records of local files), or under 1,000 when the size cannot be read."),
      why=N_("An element can only move as far as the buffer reaches: the output stays close to the input order, and "
             "the first batches all come from the start of the data."),
      fix=N_("Use a buffer as large as the data (or shuffle file names or indices with a full buffer first)."),
      doc=f"{API}#shuffle", quote="For perfect shuffling, a buffer size greater than or equal to the full size of "
      "the dataset is required.",
      example='tf.data.Dataset.range(1000).shuffle(10)',
      fixed='tf.data.Dataset.range(1000).shuffle(1000)')
def small_shuffle_buffer(s: Stage) -> Found | None:
    buffer = s.params.get("buffer_size")
    if not isinstance(buffer, int) or buffer < 0:
        return None
    size, known_from = elements_per_pass(s)
    seed_like = (_("{buffer} is also a number people use as a seed: shuffle({buffer}) sets the buffer size; a "
                         "seed is shuffle(buffer_size, seed={buffer}).").format(buffer=buffer)
                 if buffer in COMMON_SEEDS else "")
    if size is not None:
        if size == 0 or buffer >= SMALL_BUFFER_FRACTION * size:
            return None
        behind = s.input_cardinality is not None and s.input_cardinality < 0
        holds = _BUFFER_HOLDS[behind, known_from == "files"]
        return Found(
            join_sentences(
                _(holds).format(buffer=buffer, size=size, percent=100 * buffer / size),
                _("An element can come out at most {places} places earlier than it went in, so the output stays "
                  "close to the input order: the first batches all come from the start of the data.").format(
                    places=buffer - 1),
                seed_like),
            _("For a full shuffle use a buffer at least as large as the dataset: ds.shuffle({size}). If the elements "
              "are too big for that, shuffle something small (file names or indices) with a full buffer before the "
              "expensive map.").format(size=size))
    if buffer < TINY_BUFFER and upstream(s, is_("batch"), stop=is_("unbatch")) is None:
        return Found(
            join_sentences(
                _("The doctor cannot read how many elements reach it (TensorFlow does not know, and it could not "
                  "count them), so it assumed at least {assumed:,}, as in most training sets. Then a buffer of "
                  "{buffer} only mixes neighbours: an element moves at most {places} places earlier.").format(
                    assumed=TINY_BUFFER, buffer=buffer, places=max(buffer - 1, 0)),
                seed_like),
            _("If the data is larger than the buffer, use a buffer of thousands of elements (or the dataset's size if "
              "it fits in memory), and shuffle the file list too: "
              "files.shuffle(len(files)).interleave(...).shuffle(10_000). If it is smaller, ignore this."))
    return None


@rule("repeat-before-shuffle", severity="wrong", severities=("note",), on="shuffle",
      summary=N_("A shuffle fed by repeat(n): epochs mix (wrong); fed by an endless repeat(): a deliberate speed "
                 "trade-off with blurred epoch boundaries (note)."),
      why=N_("With repeat(n) before shuffle, an element can come back before another has appeared once, so an "
             "epoch is not one pass over the data."),
      fix=N_("Shuffle first, then repeat: ds.shuffle(...).repeat(n)."),
      doc=f"{GUIDE}#processing_multiple_epochs", quote="Dataset.shuffle doesn't signal the end of an epoch until "
      "the shuffle buffer is empty.",
      example='tf.data.Dataset.range(100).repeat(3).shuffle(100)',
      fixed='tf.data.Dataset.range(100).shuffle(100).repeat(3)')
def repeat_before_shuffle(s: Stage) -> Found | None:
    rep = upstream(s, repeats, stop=finite_zip)
    if rep is None:
        return None
    if infinite_repeat(rep):
        return Found(
            _("It comes after {repeat}, an endless stream: the buffer never empties, so there are no epoch "
              "boundaries and an element can come back before another has appeared once. Code that trains by steps "
              "(TPU input functions, tensorflow/models, fit with steps_per_epoch) does this on purpose: the buffer "
              "never has to refill at the end of an epoch.").format(repeat=rep.where),
            _("Nothing to fix if you train by steps. If you need clean epochs, shuffle first: "
              "ds.shuffle(...).repeat()."),
            severity="note")
    return Found(
        _("It comes after {repeat}, so the buffer mixes those passes: an element can come back a second time before "
          "another one has appeared once, and no pass is a clean epoch.").format(repeat=rep.where),
        _("Shuffle first, then repeat: ds.shuffle(...).repeat(...) keeps the epochs apart and gives a new order in "
          "every epoch."))


@rule("shuffle-before-cache", severity="wrong", on="cache",
      summary=N_("A cache stores a reshuffling shuffle's first order (or the batches made from it) and nothing "
                 "shuffles after it."),
      why=N_("Every later epoch replays the first epoch's order: the shuffle's new order each epoch is lost."),
      fix=N_("Cache first, then shuffle: ds.cache().shuffle(n).batch(b)."),
      doc=f"{API}#cache", quote="If you wish to randomize the iteration order, make sure to call shuffle after "
      "calling cache.",
      example='tf.data.Dataset.range(100).shuffle(100).cache()',
      fixed='tf.data.Dataset.range(100).cache().shuffle(100)')
def shuffle_before_cache(s: Stage) -> Found | None:
    if s.input_cardinality == -1:
        return None  # an endless input never completes the cache (cache-after-infinite-repeat says so)
    shuf = upstream(s, reshuffles, stop=is_("cache"))
    if shuf is None or downstream(s, is_(*_SHUFFLES)) is not None:
        return None  # a shuffle after the cache gives new orders (shuffle-after-batch covers batches)
    batch = upstream(s, is_("batch"), stop=lambda u: u is shuf)
    if batch:
        message = _("It stores the first epoch's output of {shuffle} and replays it: every later epoch gets the "
                    "batches that {batch} made from that order again, so the shuffle's new order each epoch is lost.")
    else:
        message = _("It stores the first epoch's output of {shuffle} and replays it: every later epoch gets that "
                    "order again, so the shuffle's new order each epoch is lost.")
    return Found(message.format(shuffle=shuf.where, batch=batch.where if batch else ""),
                 _("Cache first, then shuffle (and batch): ds.cache().shuffle(n).batch(b)."))


@rule("random-map-before-cache", severity="wrong", on="cache",
      summary=N_("A cache fed by a map that draws random numbers (a random augmentation)."),
      why=N_("From the second epoch on the cache replays the first epoch's random results: the augmentation is "
             "frozen."),
      fix=N_("Cache the deterministic work and augment after the cache: ds.map(decode).cache().map(augment)."),
      doc=f"{API}#cache", quote="cache will produce exactly the same elements during each iteration through the "
      "dataset.",
      example='tf.data.Dataset.range(100).map(lambda x: x + tf.random.uniform([], 0, 9, tf.int64)).cache()',
      fixed='tf.data.Dataset.range(100).cache().map(lambda x: x + tf.random.uniform([], 0, 9, tf.int64))')
def random_map_before_cache(s: Stage) -> Found | None:
    rnd = upstream(s, random_map, stop=is_("cache"))
    if rnd is None:
        return None
    return Found(
        _("It stores the output of {map}, which draws random numbers. From the second epoch on, the cache replays the "
          "first epoch's random results: the augmentation is frozen.").format(map=rnd.where),
        _("Cache the deterministic work (decoding, resizing) and apply the random augmentation after cache(): "
          "ds.map(decode).cache().map(augment)."))


@rule("cache-after-infinite-repeat", severity="wrong", on="cache",
      summary=N_("A cache whose input never ends (it comes after an endless repeat)."),
      why=N_("The cache never finishes its first pass: memory (or the cache file) grows without limit, and nothing "
             "is read back from it."),
      fix=N_("Cache the finite data, then repeat: ds.cache().repeat()."),
      doc=f"{PERF}#caching", quote="When you cache a dataset, the transformations before the cache one (like the "
      "file opening and data reading) are executed only during the first epoch.",
      example='tf.data.Dataset.range(100).repeat().cache()',
      fixed='tf.data.Dataset.range(100).cache().repeat()')
def cache_after_infinite_repeat(s: Stage) -> Found | None:
    rep = upstream(s, infinite_repeat, stop=lambda u: finite_take(u) or finite_zip(u))
    if rep is None and s.input_cardinality != -1:
        return None
    if rep:
        message = _("It comes after {repeat}, so its input never ends: the cache can never finish its first pass, "
                    "memory (or the cache file) grows without limit, and nothing is ever read back from it.")
    else:
        message = _("Its input never ends: the cache can never finish its first pass, memory (or the cache file) "
                    "grows without limit, and nothing is ever read back from it.")
    return Found(message.format(repeat=rep.where if rep else ""),
                 _("Cache the finite data, then repeat: ds.cache().repeat()."))


@rule("cache-to-file", severity="note", on=PIPELINE,
      summary=N_("A cache written to a file, which outlives the run (said once per pipeline)."),
      why=N_("The next run reads the file back instead of running the stages before the cache, even after they "
             "changed: the cache can go stale silently."),
      fix=N_("Delete the cache files when the stages before cache() change, or put a version in the file name."),
      doc=f"{API}#cache", quote="Changing the input pipeline before the call to .cache() will have no effect until "
      "the cache file is removed or the filename is changed.",
      example="tf.data.Dataset.range(100).cache('train_cache')",
      fixed='tf.data.Dataset.range(100).cache()')
def cache_to_file(stages: list[Stage]) -> Found | None:
    files = [s for s in stages if s.kind == "cache" and s.params.get("filename") != ""]
    if not files:
        return None
    if len(files) > 1:
        message = _("A cache written to a file outlives this run: the next run reads the file back instead of "
                    "running the stages before the cache, even after you change them. The cache goes stale silently "
                    "({n} file caches in this pipeline).")
    else:
        message = _("A cache written to a file outlives this run: the next run reads the file back instead of "
                    "running the stages before the cache, even after you change them. The cache goes stale silently.")
    return Found(
        message.format(n=len(files)),
        _("Delete the cache files (the file name plus its .index and .data suffixes) whenever the stages before "
          "cache() change, or put a version in the file name; cache() without a file name lives in memory for this "
          "run only."), stage=files[0])


def _step_limit(take: Stage, shuf: Stage) -> bool:
    """``take(n)`` of batches at the end of a pipeline: most often a limit on the training steps of a run.

    It can also split off a test set of batches (the transfer-learning tutorial's ``validation.take(k)``); the
    doctor cannot tell the two apart from one pipeline, so it says so in a note. A ``skip`` is always a split.
    """
    batched = upstream(take, lambda u: u is shuf or u.kind in ("batch", "unbatch"))
    tail = downstream(take, lambda u: u.kind not in ("prefetch", "options", "take", "repeat"))
    return batched is not None and batched.kind == "batch" and tail is None


@rule("split-after-reshuffle", severity="wrong", severities=("note",), on=("take", "skip"),
      summary=N_("take() or skip() after a shuffle that reshuffles each iteration, with no repeat between (wrong); "
                 "a take() of batches at the end of a pipeline, most often a step limit, is a note."),
      why=N_("The split picks different elements every epoch: test examples leak into training."),
      fix=N_("Split first and shuffle only the training part, or pass reshuffle_each_iteration=False."),
      doc=f"{API}#shuffle", quote="reshuffle_each_iteration: (Optional.) A boolean, which if true indicates that "
      "the dataset should be pseudorandomly reshuffled each time it is iterated over.",
      example='tf.data.Dataset.range(100).shuffle(100).take(80)',
      fixed='tf.data.Dataset.range(100).shuffle(100, reshuffle_each_iteration=False).take(80)')
def split_after_reshuffle(s: Stage) -> Found | None:
    if s.params.get("count") in (None, -1, 0):
        return None
    shuf = upstream(s, reshuffles, stop=is_("repeat"))
    if shuf is None or s.input_cardinality == -1 or upstream(s, infinite_repeat, stop=finite_zip):
        return None  # taking steps from an endless stream is a step limit, not a split
    if s.kind == "take" and _step_limit(s, shuf):
        return Found(
            _("It takes the first {count} batches of {shuffle}, which draws a new order every epoch. As a limit on "
              "the steps of a training run that is fine. If it splits off a test set, its batches change every "
              "epoch and overlap what skip() keeps for training.").format(count=s.params['count'], shuffle=shuf.where),
            _("For a step limit, nothing to do (or pass steps_per_epoch to fit). For a split, split before the "
              "shuffle, or shuffle with reshuffle_each_iteration=False (image_dataset_from_directory: split the "
              "folders, or pass shuffle=False)."),
            severity="note")
    return Found(
        # Translators: {split} is the method's name, take or skip.
        _("It splits the output of {shuffle}, which draws a new order every time the dataset is iterated. So "
          "{split}() picks different elements in every epoch: a train/test split made this way leaks test examples "
          "into training.").format(shuffle=shuf.where, split=s.kind),
        _("Split first and shuffle only the training part: train = ds.skip(n).shuffle(...), test = ds.take(n); or "
          "pass reshuffle_each_iteration=False to the shuffle before splitting."))
