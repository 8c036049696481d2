"""SourceDisplay: every output element is found in the real source it came from."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402

import tutor  # noqa: E402
from tutor.sources import SourceDisplay, SourceIndex, element_key  # noqa: E402

R = tf.data.Dataset.range


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def shard(i):
    return R(10 * i, 10 * i + 5)


def test_it_is_exported():
    assert tutor.SourceDisplay is SourceDisplay and "SourceDisplay" in tutor.__all__


def test_concatenate_is_one_stream_labelled_by_source_and_position():
    a, b = R(3), R(100, 102)
    disp = SourceDisplay.from_datasets([a, b], a.concatenate(b))
    assert not disp.batched
    assert disp.labels == [["A0", "A1", "A2", "B0", "B1"]]
    assert disp.counts == {"A": 3, "B": 2}


def test_interleave_cells_follow_the_real_order():
    sources = [shard(i) for i in range(3)]
    output = R(3).interleave(shard, cycle_length=2, block_length=3)
    disp = SourceDisplay.from_datasets(sources, output)
    expected = [(int(v) // 10, int(v) % 10) for v in output.as_numpy_iterator()]
    assert disp.rows == [expected]
    assert disp.labels[0][:8] == ["A0", "A1", "A2", "B0", "B1", "B2", "A3", "A4"]


def test_batches_become_rows():
    sources = [shard(i) for i in range(2)]
    disp = SourceDisplay.from_datasets(sources, R(2).interleave(shard, cycle_length=2).batch(4))
    assert disp.batched and disp.sources == [[0, 1, 0, 1], [0, 1, 0, 1], [0, 1]]
    assert disp.positions == [[0, 0, 1, 1], [2, 2, 3, 3], [4, 4]]


def test_one_source_filtered_and_its_inputs_view():
    ds = R(8)
    disp = SourceDisplay.from_datasets(ds, ds.filter(lambda x: x % 3 == 0))
    assert disp.positions == [[0, 3, 6]] and disp.names == ["input"]
    assert disp.uses == [[1, 0, 0, 1, 0, 0, 1, 0]]


def test_windows_are_rows_and_overlaps_are_counted():
    ds = R(10)
    windows = ds.window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    disp = SourceDisplay.from_datasets(ds, windows, row_name="window")
    assert disp.positions == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]]
    assert disp.uses[0][2] == 2 and disp.uses[0][9] == 0
    assert "rows are windows" in disp.default_title()


def test_zip_gives_one_row_per_pair():
    a, b = R(3), R(100, 104)
    disp = SourceDisplay.from_datasets([a, b], tf.data.Dataset.zip((a, b)))
    assert disp.labels == [["A0", "B0"], ["A1", "B1"], ["A2", "B2"]]


def test_a_source_of_pairs_batched_finds_each_pair():
    pairs = R(6).map(lambda i: (i, i % 2))
    disp = SourceDisplay.from_datasets(pairs, pairs.batch(4), key=lambda e: f"class {e[1]}")
    assert disp.positions == [[0, 1, 2, 3], [4, 5]]
    assert disp.group_names == ["class 0", "class 1"] and disp.groups == [[0, 1, 0, 1], [0, 1]]
    assert disp.key_name == "colour"


def test_padded_batches_of_sequences_ignore_the_padding():
    lengths = tf.constant([1, 5, 2, 7, 1, 3], tf.int64)
    seqs = R(6).map(lambda k: tf.range(10 * k + 1, 10 * k + 1 + lengths[k]))
    buckets = seqs.bucket_by_sequence_length(lambda s: tf.shape(s)[0], [3], [2, 2])

    def length(s):
        return "short" if len(s) < 3 else "long"

    disp = SourceDisplay.from_datasets(seqs, buckets, key=length)
    assert sorted(p for row in disp.positions for p in row) == list(range(6))
    assert all(len(set(g)) == 1 for g in disp.groups), "a bucket batch mixes length ranges"
    assert disp.key_name == "length" and disp.group_names == ["short", "long"]


def test_lines_of_text_files_are_found_in_their_file(tmp_path):
    paths = []
    for k, n in enumerate((2, 3)):
        path = tmp_path / f"part{k}.txt"
        path.write_text("".join(f"file {k} line {i}\n" for i in range(n)))
        paths.append(str(path))
    files = [tf.data.TextLineDataset(p) for p in paths]
    mixed = tf.data.Dataset.from_tensor_slices(paths).interleave(tf.data.TextLineDataset, cycle_length=2)
    disp = SourceDisplay.from_datasets(files, mixed, names=["a", "b"])
    assert disp.labels == [["a0", "b0", "a1", "b1", "b2"]]


def test_an_endless_output_is_read_up_to_max_rows():
    ds = R(4)
    disp = SourceDisplay.from_datasets(ds, ds.repeat(), max_rows=10)
    assert disp.truncated and disp.positions == [[0, 1, 2, 3, 0, 1, 2, 3, 0, 1]]
    assert "the first 10 elements of a longer stream" in disp.default_title()


def test_from_replicas_rows_are_steps_coloured_by_replica():
    steps = [(np.array([0, 1]), np.array([2, 3])), (tf.constant([4, 5]), tf.constant([6]))]
    disp = SourceDisplay.from_replicas(steps)
    assert disp.names == ["replica 0", "replica 1"] and disp.row_name == "step"
    assert disp.labels == [["0", "1", "2", "3"], ["4", "5", "6"]] and disp.sources == [[0, 0, 1, 1], [0, 0, 1]]


def test_plot_draws_one_cell_per_element_and_a_legend_of_sources():
    a, b = R(3), R(100, 102)
    disp = SourceDisplay.from_datasets([a, b], a.concatenate(b).batch(2)).plot()
    assert isinstance(disp.cells_, PatchCollection) and len(disp.cells_.get_paths()) == 5
    assert [t.get_text() for t in disp.texts_] == ["A0", "A1", "A2", "B0", "B1"]
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()] == ["A", "B"]
    colours = disp.cells_.get_facecolors()
    assert np.allclose(colours[0], colours[1]) and not np.allclose(colours[0], colours[3])


def test_inputs_view_greys_out_what_never_came_out():
    ds = R(6)
    disp = SourceDisplay.from_datasets(ds, ds.take_while(lambda x: x < 2)).plot(kind="inputs")
    grey = matplotlib.colors.to_rgba("#E8E8E8")
    faces = disp.cells_.get_facecolors()
    assert len(faces) == 6 and all(np.allclose(f, grey) for f in faces[2:]) and not np.allclose(faces[0], grey)
    assert "never came out (4)" in disp.ax_.get_title(loc="left")
    twice = SourceDisplay.from_datasets(ds, ds.window(2, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(2)))
    assert "×2" in "".join(t.get_text() for t in twice.plot(kind="inputs").texts_)


def test_wrapping_a_long_stream():
    disp = SourceDisplay.from_datasets(R(30), R(30)).plot(wrap=10)
    rows = {round(t.get_position()[1]) for t in disp.texts_}
    assert len(rows) == 3


@pytest.mark.parametrize("sources, output, message", [
    ([R(3), R(3)], R(3), "both element 0"),
    (R(5), R(5).map(lambda x: x * 100), "not an element of any source"),
    (R(5), R(5).window(2), "flat_map"),
    ([1, 2, 3], R(3), "list of them"),
    (R(5), [1, 2], "expects a tf.data.Dataset"),
])
def test_bad_input_gets_a_sentence(sources, output, message):
    with pytest.raises((TypeError, ValueError), match=message):
        SourceDisplay.from_datasets(sources, output)


def test_names_must_match_the_sources():
    with pytest.raises(ValueError, match="one name per source"):
        SourceDisplay.from_datasets([R(2), R(10, 12)], R(2), names=["only one"])
    with pytest.raises(TypeError, match="integer ids"):
        SourceDisplay.from_replicas([(np.array([0.5]),)])


def test_element_keys_and_padding():
    assert element_key((np.int64(1), np.array([2, 3]))) == ("tuple", 1, ("array", (2,), (2, 3)))
    index = SourceIndex([[np.array([1, 2]), np.array([3])]])
    assert index.find(np.array([3, 0, 0])) == (0, 1) and index.find(np.array([4])) is None


def test_the_per_row_note_appears_only_when_the_elements_wrap():
    ds = R(8)
    one_row = SourceDisplay.from_datasets(ds, ds.filter(lambda x: x % 2 == 0)).plot()
    assert one_row.ax_.get_xlabel() == "output order, left to right"
    wrapped = SourceDisplay.from_datasets(R(30), R(30)).plot()
    assert wrapped.ax_.get_xlabel() == "output order, left to right (12 per row)"
    plt.close("all")


def test_an_endless_output_names_the_bound_it_stopped_at():
    disp = SourceDisplay.from_datasets(R(4), R(4).repeat(), max_rows=10)
    assert "reading stopped at max_rows=10" in disp.default_title()
