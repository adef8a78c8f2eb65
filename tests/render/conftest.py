from __future__ import annotations

import pytest
from behaviour_contracts import played
from injection_cases import TARGETS, constructed, loaded
from loading import load_project
from opencode_support import TscBatch, npm_bin
from pi_support import misspelled_pi
from repo_paths import REPO

from pasture.hosts.opencode import opencode_artifacts
from pasture.hosts.pi import pi_artifacts


@pytest.fixture(scope="session")
def tsc_batch(tmp_path_factory) -> TscBatch:
    """One tsc run for every OpenCode plugin the suite type-checks or runs under Node.

    Cases: each committed OpenCode contract, a v1 plugin with a misspelled hook (must fail), and the
    four hostile-string contracts of test_opencode_injection.py; each committed Pi contract and a Pi
    extension subscribing to a misspelled event (must fail), in the batch's --skipLibCheck program. Each
    test hands over the text it holds, and the batch asserts it compiled exactly that text.
    """
    batch = TscBatch(npm_bin(), tmp_path_factory.mktemp("tsc-batch"))
    contracts = {c.id: c for c in load_project(REPO) if c.harness.value == "opencode"}
    for contract_id, contract in sorted(contracts.items()):
        batch.add(f"committed-{contract_id}", opencode_artifacts(contract)[0].text)
    for contract_id, contract in sorted(played(contracts).items()):
        batch.add(f"behaviour-{contract_id}", opencode_artifacts(contract)[0].text)
    batch.add(
        "misspelled-opencode@1.18.29",
        opencode_artifacts(contracts["opencode@1.18.29"])[0].text.replace(
            '    "chat.params": (', '    "chat.paramz": ('
        ),
    )
    for contract_id in sorted(TARGETS):
        batch.add(
            f"injection-loaded-{contract_id}",
            opencode_artifacts(loaded(tmp_path_factory.mktemp("injection"), contract_id)[0])[0].text,
        )
        batch.add(f"injection-constructed-{contract_id}", opencode_artifacts(constructed(contract_id)[0])[0].text)
    for contract in sorted((c for c in load_project(REPO) if c.harness.value == "pi"), key=lambda c: c.id):
        text = pi_artifacts(contract)[0].text
        batch.add(f"committed-{contract.id}", text, lib_check=False)
        batch.add(f"misspelled-{contract.id}", misspelled_pi(text), lib_check=False)
    return batch
