"""Every path, config key, make target, flag and rule the README (and the docs/ pages it links)
names exists: each is read out of them and looked up in the repository, the config schema, the Makefile, the `lmgap`
command's parser, Snakemake's own options and the rules."""

import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

import readme_tables
from conftest import REPO, SNAKEMAKE

README = (REPO / "README.md").read_text()
# The README and the pages it links, where things are named too.
DOCS = README + "".join(path.read_text() for path in sorted((REPO / "docs").glob("*.md")))
LMGAP = str(Path(SNAKEMAKE).parent / "lmgap")
# The flags of `lmgap`'s subcommands the docs may name, by subcommand.
LMGAP_FLAGS = {"score": {"--bits"}, "submit": {"--submission", "--despite-config"}}
# Text in backticks, and the lines of the README's code blocks: where it names things.
QUOTED = re.findall(r"`([^`\n]+)`", DOCS)
CODE = "\n".join(re.findall(r"```[a-z]*\n(.*?)```", DOCS, flags=re.S))
RULES_TEXT = "\n".join(path.read_text() for path in (REPO / "workflow/rules").glob("*.smk"))
# Folders a run makes, and the corpus's own layout: named, never in the repository.
MADE_BY_A_RUN = ("results/", "logs/", "resources/", ".venv/", ".snakemake/")
CORPUS_LAYOUT = ("train/", "dev-0/", "dev-1/", "test-A/")
BASES = (REPO, REPO / "workflow/lmgap", REPO / "tests")
CODE_TEXT = (
    RULES_TEXT
    + (REPO / "Makefile").read_text()
    + "".join(path.read_text() for path in (REPO / "workflow").rglob("*.py"))
)


def named_paths():
    words = set(QUOTED) | set(CODE.split())
    return sorted(
        word.rstrip(".,:;)")
        for word in words
        if re.fullmatch(r"[a-z.][\w.-]*(/[\w.{}*-]*)+/?", word.rstrip(".,:;)")) and "://" not in word
    )


def test_every_repository_path_the_readme_names_exists():
    missing = []
    for path in named_paths():
        if path.startswith(CORPUS_LAYOUT) or path.startswith("/"):
            continue
        if path.startswith(MADE_BY_A_RUN):
            # A run's file: the rules, the pipeline's code or the Makefile spell its first folders.
            spelled = "/".join([part for part in path.split("/") if part][:2])
            # (The report is written where `--report` says.)
            if spelled not in CODE_TEXT and not path.startswith((".venv/", ".snakemake/", "results/report.html")):
                missing.append(path)
        # The Layout names the package's and the tests' folders by their own names.
        elif not any(list(base.glob(re.sub(r"\{[^}]*\}", "*", path).rstrip("/"))) for base in BASES):
            missing.append(path)
    assert not missing


def schema_has(keys):
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    node = schema
    for key in keys:
        properties = node.get("properties", {})
        if key not in properties:
            return False
        node = properties[key]
    return True


def test_every_config_key_the_readme_names_is_in_the_schema():
    top = set(yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())["properties"])
    keys = {
        match.group(1)
        for text in QUOTED
        for match in [re.match(r"([a-z_]+(?:\.[a-z_]+)+)(?::|\s|=|$)", text)]
        if match
        and match.group(1).split(".")[0] in top
        and not re.search(r"\.(tsv|md|yaml|json|py|txt|toml|png|html)$", match.group(1))
    }
    keys |= {text.rstrip(":") for text in QUOTED if re.fullmatch(r"[a-z_]+:?", text) and text.rstrip(":") in top}
    assert {"memory.budget_mb", "lmplz.temp_dir", "corpus.source", "gap.top_k"} <= keys
    assert [key for key in sorted(keys) if not schema_has(key.split("."))] == []


def test_every_make_target_the_readme_names_is_in_the_makefile():
    makefile = (REPO / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, flags=re.M))
    named = {text.split()[1] for text in QUOTED if re.fullmatch(r"make [a-z][\w-]*", text)}
    named |= set(re.findall(r"^make ([a-z][\w-]*)", CODE, flags=re.M))
    assert {"run", "test", "demo", "setup"} <= named
    assert named <= targets, named - targets


def test_every_lmgap_subcommand_and_flag_the_readme_names_is_in_its_parser():
    named = {text.split()[1] for text in QUOTED if re.fullmatch(r"lmgap [a-z]+", text)}
    named |= set(re.findall(r"/lmgap ([a-z]+) ", CODE))
    assert named == {"score", "submit"}
    for command in named:
        usage = subprocess.run([LMGAP, command, "--help"], capture_output=True, text=True).stdout
        assert usage.startswith(f"usage: lmgap {command}")
        for flag in LMGAP_FLAGS[command] & set(re.findall(r"(?<![\w-])(--[a-z][a-z_-]+)", DOCS)):
            assert flag in usage


def test_every_snakemake_option_the_readme_names_is_snakemake_s():
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z_-]+)", DOCS))
    # The options the README quotes of other programs: `lmgap score`'s, lmplz's, snakefmt's and timeout's.
    options -= set().union(*LMGAP_FLAGS.values()) | {
        "--prune",
        "--discount_fallback",
        "--interpolate_unigrams",
        "--vocab_pad",
        "--skip_symbols",
        "--check",
        "--foreground",
    }
    helped = subprocess.run([SNAKEMAKE, "--help"], capture_output=True, text=True).stdout
    helped += subprocess.run([SNAKEMAKE, "--executor", "slurm", "--help"], capture_output=True, text=True).stdout
    assert "--cores" in options and "--unlock" in options
    assert sorted(option for option in options if option not in helped) == []


def test_every_rule_the_readme_names_exists():
    rules = set(re.findall(r"^(?:\s*)(?:rule|checkpoint) (\w+):", RULES_TEXT, flags=re.M))
    named = set(re.findall(r"rule `(\w+)`", DOCS)) | set(re.findall(r"`(\w+)` job", DOCS))
    named |= set(re.findall(r"--forcerun (\w+)", DOCS))
    assert {"fetch_corpus", "kenlm_tools"} <= named
    assert named <= rules, named - rules


def test_the_demo_command_the_readme_gives_is_the_one_make_demo_runs():
    command = shlex.join(readme_tables.demo_command())
    assert command.startswith("snakemake --cores 8 --config ")
    assert f"`{command}`" in README


def test_the_readme_marks_the_demo_s_tables_and_ci_checks_them_against_a_new_demo_run():
    assert {table for table, _ in readme_tables.blocks(README)} == {"perplexity.md", "gap.md"}
    assert "\nmake readme-check\n" in (REPO / ".ci/run").read_text()


def test_make_readme_writes_the_demo_s_tables_and_the_check_sets_only_times_aside(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "gap.md").write_text(
        "## Gap\n\n| Model | PerplexityHashed | Time (s) |\n|---|---:|---:|\n| o3 | 69.79 | 0.6 |\n\n- notes\n"
    )
    readme = tmp_path / "README.md"
    readme.write_text(
        "Intro\n<!-- make readme: gap.md -->\n```\n| Model | PerplexityHashed | Time (s) |\n"
        "|---|---:|---:|\n| o3 | 70.00 | 0.6 |\n```\n<!-- make readme: end -->\nOutro\n"
    )
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 1
    with pytest.raises(SystemExit, match="does not exist: run `make demo` first"):
        readme_tables.main(["--check", str(tmp_path / "no-demo-yet"), str(readme)])
    assert readme_tables.main([str(tables), str(readme)]) == 0
    written = readme.read_text()
    assert written == (
        "Intro\n<!-- make readme: gap.md -->\n```\n| Model | PerplexityHashed | Time (s) |\n"
        "|---|---:|---:|\n| o3 | 69.79 | 0.6 |\n```\n<!-- make readme: end -->\nOutro\n"
    )
    # Another run's times are no difference; another figure is.
    (tables / "gap.md").write_text((tables / "gap.md").read_text().replace("| 0.6 |", "| 0.9 |"))
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 0
    (tables / "gap.md").write_text((tables / "gap.md").read_text().replace("69.79", "69.80"))
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 1


def test_the_neural_rows_are_exact_on_the_machine_that_wrote_them_and_near_on_another(tmp_path, monkeypatch):
    tables = tmp_path / "tables"
    tables.mkdir()
    header = "| Model | PerplexityHashed | Top-1 |\n|---|---:|---:|\n"
    (tables / "gap.md").write_text(header + "| o3 | 139.10 | 23.0% |\n| small | 279.76 | 10.9% |\n")
    readme = tmp_path / "README.md"
    marks = "<!-- make readme: gap.md -->\n```\n```\n<!-- make readme: end -->\n"
    readme.write_text(f"{marks}From <!-- make readme: machine -->x<!-- make readme: end -->.\n")
    monkeypatch.setattr(readme_tables, "machine", lambda: "GenuineIntel, AVX512, 2 cores, torch 2.13.0+cpu")
    assert readme_tables.main([str(tables), str(readme)]) == 0
    assert "From <!-- make readme: machine -->GenuineIntel, AVX512, 2 cores, torch 2.13.0+cpu<!--" in readme.read_text()
    # What another CPU's kernels move: the small model's figures, within 5%.
    (tables / "gap.md").write_text(header + "| o3 | 139.10 | 23.0% |\n| small | 279.09 | 11.2% |\n")
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 1
    monkeypatch.setattr(readme_tables, "machine", lambda: "AuthenticAMD, AVX2, 2 cores, torch 2.13.0+cpu")
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 0
    # Beyond 5%, or any n-gram figure, still fails there.
    (tables / "gap.md").write_text(header + "| o3 | 139.10 | 23.0% |\n| small | 295.00 | 11.2% |\n")
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 1
    (tables / "gap.md").write_text(header + "| o3 | 139.11 | 23.0% |\n| small | 279.09 | 11.2% |\n")
    assert readme_tables.main(["--check", str(tables), str(readme)]) == 1


def test_the_readme_names_the_machine_its_neural_rows_come_from():
    assert readme_tables.written_on(README).count(",") == 3
    assert readme_tables.kernel_models() == {"small", "cloze", "blend"}


# The sections of docs/sweeping.md whose every bullet claims what a run does, and so names its test.
CLAIMS = (REPO / "docs/sweeping.md").read_text()
CLAIM_SECTIONS = ("## Sweeping", "## Interrupted and failed runs")


def section(text, title):
    start = text.index(f"\n{title}\n")
    following = re.search(r"\n#{2,3} ", text[start + len(title) + 2 :])
    return text[start : start + len(title) + 2 + (following.start() if following else len(text))]


def test_each_claim_of_what_a_run_does_names_the_test_that_checks_it():
    for title in CLAIM_SECTIONS:
        claims = re.split(r"\n(?=- )", section(CLAIMS, title))[1:]
        assert claims, title
        for claim in claims:
            assert re.search(r"<!-- test: [^>]+ -->", claim), f"{title}: a claim names no test:\n{claim}"
    named = [name for names in re.findall(r"<!-- test: ([^>]+) -->", DOCS) for name in names.split(", ")]
    assert len(named) >= 20
    for name in named:
        path, function = name.split("::")
        assert re.search(rf"^def {function}\(", (REPO / path).read_text(), re.M), f"docs name {name}"


def test_every_link_between_the_readme_and_its_pages_resolves():
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name} links {target}"
