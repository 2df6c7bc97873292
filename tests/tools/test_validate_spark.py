"""``autoswitch validate --master local[2]``: the logs run on Spark give the rows this process gives (verdicts, search
sizes, explanations, refusals)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from autoswitch.conformance.logs.batch import Settings, validate_many

EXAMPLE = Path(__file__).resolve().parents[2] / "traces/logs/failover"


def test_spark_gives_the_verdicts_of_this_process(tmp_path: Path) -> None:
    falsified = tmp_path / "falsified"
    shutil.copytree(EXAMPLE, falsified)
    lines = [json.loads(x) for x in (falsified / "p2.ndjson").read_text().splitlines()]
    lines[4]["observe"]["role"] = "SLAVE"
    (falsified / "p2.ndjson").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "malformed.ndjson").write_text('{"node": "p1", "ts": 1, "level": 2}\n')
    logs = [str(EXAMPLE), str(falsified), str(tmp_path / "malformed.ndjson")]
    here, _, where = validate_many(logs, Settings(), "none")
    spark, _, on = validate_many(logs, Settings(), "local[2]")
    assert where == "this process" and on.startswith("Spark local[2]")
    assert [r.status for r in spark] == [r.status for r in here] == ["explained", "refused", "malformed"]
    assert [(r.path, r.events, r.expanded, r.memo, r.itf) for r in spark] == [(r.path, r.events, r.expanded, r.memo, r.itf)
                                                                               for r in here]
    assert spark[1].text.split("\n")[1:] == here[1].text.split("\n")[1:] and spark[2].text == here[2].text
