"""What a job learns of a neural model from its `model` input alone (lmgap.neural.files)."""

from lmgap.neural.files import model_folder, weights_bytes


def test_a_job_finds_its_model_s_folder_in_what_it_is_handed(tmp_path):
    # A model trained here is handed as its folder; a user's saved model as each of its files.
    trained = tmp_path / "trained" / "model"
    saved = tmp_path / "my models" / "gpt2"
    for folder in (trained, saved):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(b"\0" * 100)
        (folder / "vocab.txt").write_text("a\nb\n")
    assert model_folder(str(trained)) == str(trained)
    assert model_folder([str(trained)]) == str(trained)
    files = sorted(str(path) for path in saved.iterdir())
    assert model_folder(files) == str(saved)
    assert weights_bytes(model_folder(files)) == 100
