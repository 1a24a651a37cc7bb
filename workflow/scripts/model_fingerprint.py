"""Entry point of checkpoint model_fingerprint: the sha256 of an installed model's binary."""

from lmgap.atomic import write_json
from lmgap.files import sha256
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_json({"binary_sha256": sha256(snakemake.input.binary)}, snakemake.output.fingerprint),
)
