# Which KenLM tools train and score a model, and the record of them (rules in kenlm.smk).
from lmgap.ngram.build import PYTHON_MODULE_MAX_ORDER, TOOLS, pinned_kenlm

# KenLM's version and the sha256 of its source distribution, as the set-up pins them.
KENLM_VERSION, KENLM_SHA256 = pinned_kenlm(Path(workflow.basedir) / "requirements-kenlm.txt")


def kenlm_build_order(order):
    """The KENLM_MAX_ORDER of the tools that train and score an order-n model: KenLM's default,
    6, up to 6, else n itself. A model keeps its tools when orders are added, so adding a high
    order rebuilds no tool an existing model uses and retrains none of them."""
    return max(PYTHON_MODULE_MAX_ORDER, order)


KENLM_BUILDS = sorted({kenlm_build_order(order) for order in ORDERS})


def kenlm_identity():
    """Which KenLM trains the models: the pinned version, or the user's own tools (whose
    version nothing tells: a model depends on their files instead, see kenlm_tool)."""
    if not config["kenlm"]["bin_dir"]:
        return f"kenlm {KENLM_VERSION}"
    return "kenlm.bin_dir"


def kenlm_tools_checked(wildcards):
    """The check that the user's own tools run and support the model's order, before it trains."""
    if not config["kenlm"]["bin_dir"]:
        return []
    return rules.kenlm_tools.output.record.format(order=MODELS[wildcards.model]["order"])


def kenlm_build_dir(max_order):
    return Path(f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{max_order}")


def kenlm_bin_dir(max_order):
    """The user's KenLM tools if configured, else the pipeline's build for max_order."""
    if config["kenlm"]["bin_dir"]:
        return Path(config["kenlm"]["bin_dir"])
    return kenlm_build_dir(max_order) / "bin"


def kenlm_tool(tool):
    """An input function: the tool a model's order needs. The pipeline's build is ancient(): built
    again from the same pinned source, it scores and trains the same, so its new date reruns
    nothing. A user's own tool replaced by a newer file retrains and rescores what it made.
    """

    def tool_for(wildcards):
        order = MODELS[wildcards.model]["order"]
        if config["kenlm"]["bin_dir"]:
            return user_tools([tool])
        return ancient(str(kenlm_bin_dir(kenlm_build_order(order)) / tool))

    return tool_for


def user_tools(tools=TOOLS):
    """The user's own tools that exist: a missing one is named, with the key that fixes it, by
    the kenlm_tools job that every model waits for (Snakemake's own error would not)."""
    paths = [Path(config["kenlm"]["bin_dir"]) / tool for tool in tools]
    return [str(path) for path in paths if path.exists()]


def every_kenlm_tool():
    """The tools of every build the models use, {name: path}, for the provenance record; the
    user's own tools by their names alone (their maximum order is theirs; see user_tools).
    """
    if config["kenlm"]["bin_dir"]:
        return {Path(path).name: path for path in user_tools()}
    return {
        f"{tool} (maxorder {max_order})": str(kenlm_bin_dir(max_order) / tool)
        for max_order in KENLM_BUILDS
        for tool in TOOLS
    }


def kenlm_python_for(wildcards):
    """For a model of an order the .venv's kenlm module cannot load, a module built for it;
    models the .venv's module loads do not depend on one, so adding a high order rescores
    nothing else."""
    order = MODELS[wildcards.model]["order"]
    if order <= PYTHON_MODULE_MAX_ORDER:
        return []
    return [ancient(str(kenlm_build_dir(kenlm_build_order(order)) / "python"))]
