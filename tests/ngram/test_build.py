"""Building KenLM: the pinned download and a clear message when prerequisites are missing."""

import shutil
from pathlib import Path

import kenlm
import pytest

from conftest import GAP_TABLE, PERPLEXITY_TABLE, REPO, demo_corpus, run_pipeline
from lmgap.errors import LmgapError
from lmgap.ngram import build as kenlm_build


def test_missing_compiler_names_the_debian_packages(tmp_path, monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(kenlm_build.shutil, "which", lambda tool: None if tool == "cmake" else real_which(tool))
    with open(tmp_path / "build.log", "w") as log, pytest.raises(LmgapError) as err:
        kenlm_build.configure_and_make(tmp_path / "src", tmp_path / "build", 6, 1, log)
    message = str(err.value)
    assert "cmake is not installed" in message
    for package in ("libboost-program-options-dev", "libboost-system-dev", "libboost-thread-dev", "zlib1g-dev"):
        assert package in message


def test_cmake_without_boost_names_the_packages(tmp_path):
    """A real cmake run on a project that needs Boost components that cannot be found."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.10)\nproject(probe CXX)\n"
        "set(Boost_NO_SYSTEM_PATHS ON)\nset(BOOST_ROOT /nonexistent)\nset(Boost_NO_BOOST_CMAKE ON)\n"
        "find_package(Boost 99.0 REQUIRED COMPONENTS program_options)\n"
    )
    with open(tmp_path / "build.log", "w") as log, pytest.raises(LmgapError) as err:
        kenlm_build.configure_and_make(src, tmp_path / "build", 6, 1, log)
    assert "cmake could not find Boost" in str(err.value)
    assert "sudo apt-get install" in str(err.value) and "libboost-thread-dev" in str(err.value)


def test_download_refuses_a_wrong_checksum(tmp_path):
    version, real = kenlm_build.pinned_kenlm(REPO / "requirements-kenlm.txt")
    with open(tmp_path / "pip.log", "w") as log, pytest.raises(LmgapError, match="pinned sha256"):
        kenlm_build.download_sdist(version, "0" * 64, tmp_path, log)
    # pip downloaded the file and refused it for its hash, not for any other failure: it names the
    # pinned hash and the file's real one, which is the one requirements-kenlm.txt pins.
    said = (tmp_path / "pip.log").read_text()
    assert "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE" in said
    assert f"Expected sha256 {'0' * 64}" in said and f"Got        {real}" in said
    assert not list(tmp_path.glob("*.tar.gz"))


@pytest.mark.pipeline
def test_user_tools_below_the_configured_order_train_no_model_of_that_order(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=200, dev_sentences=20)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3, 7],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "lmplz": {"discount_fallback": True},
        "gap": {"enabled": True, "document": {"enabled": False}},
    }
    done = run_pipeline(tmp_path / "work", config, PERPLEXITY_TABLE, GAP_TABLE, check=False)
    assert done.returncode != 0
    assert "lmgap error in rule kenlm_tools: the KenLM in kenlm.bin_dir" in done.stderr
    assert "compiled with maximum order 6, but orders asks for [7]" in done.stderr
    # The order-7 model is never started, nor the kenlm module its gap scores would load; the
    # order-3 one does not need those tools (keep-going).
    assert "model=o7" not in done.stderr and "rule build_kenlm_python" not in done.stdout + done.stderr
    assert not (tmp_path / "work/results/models/o7").exists()
    assert not list((tmp_path / "work").glob("resources/kenlm/*maxorder7*"))


def test_the_order_check_model_is_valid_arpa_with_the_hand_worked_score(tmp_path):
    # Every n-gram of "<s> w0 w1 w2 </s>" up to trigrams, each at log10 p = -1: the sentence
    # w0 w1 w2 scores four trigram or bigram hits, -4, with no backoff.
    arpa = tmp_path / "order3.arpa"
    arpa.write_text(kenlm_build.chain_arpa(3))
    model = kenlm.Model(str(arpa))
    assert model.order == 3 and model.score("w0 w1 w2") == -4.0


def test_a_module_that_cannot_load_its_order_is_not_called_built(tmp_path):
    # The .venv's module is KenLM's default build (maximum order 6): what a cached wheel gave a
    # build asked for order 7. It loads order 6 and is refused for 7, with the order named.
    module_dir = Path(kenlm.__file__).parent
    with open(tmp_path / "build.log", "w") as log:
        for order in (2, 6):
            (tmp_path / f"o{order}.arpa").write_text(kenlm_build.chain_arpa(order))
            kenlm_build.check_module_order(module_dir, tmp_path / f"o{order}.arpa", order, log)
        (tmp_path / "o7.arpa").write_text(kenlm_build.chain_arpa(7))
        with pytest.raises(LmgapError, match="built for maximum order 7 cannot load an order-7 model"):
            kenlm_build.check_module_order(module_dir, tmp_path / "o7.arpa", 7, log)
    assert "KenLM was compiled to support up to 6" in (tmp_path / "build.log").read_text()


@pytest.mark.pipeline
def test_a_user_tool_missing_from_bin_dir_is_named_with_its_key_before_any_model(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=200, dev_sentences=20)
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("query", "build_binary"):
        shutil.copy2(kenlm_bin / tool, tools / tool)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(tools)},
        "gap": {"enabled": False},
    }
    done = run_pipeline(tmp_path / "work", config, PERPLEXITY_TABLE, check=False)
    assert done.returncode != 0
    assert (
        f"lmgap error in rule kenlm_tools: kenlm.bin_dir is {tools} but {tools}/lmplz is not an executable"
        in done.stderr
    )
    assert "fix kenlm.bin_dir or remove it" in done.stderr
    assert not (tmp_path / "work/results/models").exists()


def test_missing_user_tool_names_the_key(tmp_path):
    with pytest.raises(LmgapError, match="fix kenlm.bin_dir"):
        kenlm_build.record_user_tools(tmp_path, [3], tmp_path / "tools.json")


@pytest.mark.parametrize("script, said", [("kill -SEGV $$", " (it crashed: SIGSEGV)"), ("echo hello", "")])
def test_a_user_query_that_names_no_order_is_named_with_its_crash_and_the_key(tmp_path, script, said):
    query = tmp_path / "query"
    query.write_text(f"#!/bin/bash\n{script}\n")
    query.chmod(0o755)
    with pytest.raises(LmgapError) as err:
        kenlm_build.compiled_max_order(query)
    assert str(err.value) == (
        f"{query} did not say its maximum order{said}; is it KenLM's query? Fix kenlm.bin_dir, or remove it to let "
        "the pipeline build KenLM"
    )
