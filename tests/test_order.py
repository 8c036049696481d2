"""tutor/order.py: BatchOrderDisplay reads which element lands in which batch of a real pipeline, and draws it."""
import pytest
import tensorflow as tf

from tutor import BatchOrderDisplay


def test_from_dataset_reads_batches():
    disp = BatchOrderDisplay.from_dataset(tf.data.Dataset.range(5).batch(2))
    assert disp.batches == [[0, 1], [2, 3], [4]]
    assert disp.batched and not disp.truncated


def test_repeat_then_batch_crosses_epochs():
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(3).batch(7), n_elements=10)
    assert disp.batch_sizes == [7, 7, 7, 7, 2]
    assert disp.mixed_batches == [1, 2]
    assert disp.epochs[1] == [0, 0, 0, 1, 1, 1, 1]


def test_batch_then_repeat_keeps_epochs_apart():
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(7).repeat(3), n_elements=10)
    assert disp.batch_sizes == [7, 3, 7, 3, 7, 3]
    assert disp.mixed_batches == []


def test_unbatched_pipeline_is_one_element_per_step():
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(2), n_elements=3)
    assert not disp.batched
    assert disp.order.tolist() == [0, 1, 2, 0, 1, 2]
    disp.plot()
    assert len(disp.cells_.get_paths()) == 6


def test_infinite_dataset_is_bounded():
    disp = BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).repeat().batch(4), max_batches=6)
    assert len(disp.batches) == 6 and disp.truncated


def test_plot_draws_a_labelled_cell_per_element_coloured_by_epoch():
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(2).batch(4), n_elements=5).plot()
    assert disp.ax_ is not None and disp.figure_ is disp.ax_.figure
    assert len(disp.cells_.get_paths()) == 10
    assert [t.get_text() for t in disp.texts_] == ["0", "1", "2", "3", "4", "0", "1", "2", "3", "4"]
    colours = [tuple(c) for c in disp.cells_.get_facecolors()]
    assert colours[3] == colours[0] and colours[5] != colours[4]  # epoch 2 starts at the 6th element
    assert disp.ax_.get_xlabel() and disp.ax_.get_ylabel() and disp.ax_.get_title("left")


def test_plot_on_given_axes_returns_self():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(3))
    assert disp.plot(ax=ax) is disp and disp.ax_ is ax
    plt.close(fig)


def test_bad_inputs():
    with pytest.raises(TypeError, match="from_tensor_slices"):
        BatchOrderDisplay.from_dataset([1, 2, 3])
    with pytest.raises(TypeError, match="integer element ids"):
        BatchOrderDisplay.from_dataset(tf.data.Dataset.from_tensor_slices(["a", "b"]))
    with pytest.raises(TypeError, match="return"):
        BatchOrderDisplay.from_pipeline(lambda ds: None)
    with pytest.raises(TypeError, match="function"):
        BatchOrderDisplay.from_pipeline(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="max_batches"):
        BatchOrderDisplay.from_dataset(tf.data.Dataset.range(3), max_batches=0)


def test_replot_reuses_the_artists_and_matches_a_fresh_plot():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    first = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(3).batch(4), n_elements=10).plot(ax=ax)
    again = BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(3).repeat(2), n_elements=10)
    assert again.replot(first) == [ax]  # cells, labels and legend all moved: the whole axes changed
    assert again.cells_ is first.cells_ and again.ax_ is ax  # the same artists, new data
    assert len(again.cells_.get_paths()) == 20
    assert [t.get_text() for t in again.texts_] == [str(i) for i in again.order.tolist()]
    visible = [t.get_text() for t in ax.texts if t.get_visible()]
    assert visible.count("3 (1)") == 1 and "7 (2)" not in visible  # the old row labels are gone
    fresh = BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(3).repeat(2), n_elements=10).plot()
    assert [tuple(c) for c in again.cells_.get_facecolors()] == [tuple(c) for c in fresh.cells_.get_facecolors()]
    plt.close("all")


def test_empty_result_draws_a_note_instead_of_cells():
    disp = BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).batch(12, drop_remainder=True)).plot()
    assert disp.batches == [] and len(disp.cells_.get_paths()) == 0
    assert "nothing was emitted" in [t.get_text() for t in disp.ax_.texts]
    assert "the pipeline emitted nothing" in disp.ax_.get_title("left")


def test_cell_labels_fit_their_cells_when_rows_are_many():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(4).batch(1), n_elements=10).plot(ax=ax)
    fig.canvas.draw()
    row_height = ax.bbox.height / len(disp.batches)
    assert all(t.get_window_extent().height <= row_height for t in disp.texts_)
    plt.close(fig)


def test_notes_use_real_plurals():
    assert BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(4)).notes() == "1 short batch"
    two = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(3).batch(7)).notes()
    assert two == "2 batches mix two epochs, 1 short batch" and "(es)" not in two
    one = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(2).batch(6)).notes()
    assert one.startswith("1 batch mixes two epochs")


def test_an_endless_stream_says_where_reading_stopped():
    disp = BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).repeat().batch(4), max_batches=8)
    assert disp.truncated and "reading stopped at max_batches=8: the stream goes on" in disp.notes()


def test_the_legend_says_epoch_1_is_the_first_pass():
    import matplotlib.pyplot as plt

    disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.repeat(2).batch(4)).plot()
    legend = disp.ax_.get_legend()
    assert legend.get_title().get_text() == "epoch"
    assert [t.get_text() for t in legend.get_texts()] == ["1 (first pass)", "2"]
    plt.close(disp.figure_)


@pytest.mark.parametrize("presentation", [False, True])
def test_the_axis_title_clears_two_digit_row_labels(presentation):
    import matplotlib.pyplot as plt

    import tutor

    tutor.presentation(presentation)
    try:
        disp = BatchOrderDisplay.from_pipeline(lambda ds: ds.batch(12), n_elements=40).plot()
        disp.figure_.canvas.draw()
        renderer = disp.figure_.canvas.get_renderer()
        rows = [t for t in disp.ax_.texts if t.get_visible() and t.get_text().endswith("(12)")]
        assert rows, "the row labels were not found"
        label = disp.ax_.yaxis.label.get_window_extent(renderer)
        assert all(label.x1 <= t.get_window_extent(renderer).x0 for t in rows)
        plt.close(disp.figure_)
    finally:
        tutor.presentation(False)
