"""The replay file (server/readmodels/share/html.py, bundle.py): the module graph rewritten to bare
specifiers behind an import map, JSON that cannot close its <script>, the record read back by
the importer, and the file over HTTP (in process and from a read worker) and on the command
line."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from records.embedded import record_text_of_html
from records.errors import RecordFormatError
from records.importer import parse_record_file
from server.app import create_app
from server.cli import main
from server.config import ServerConfig
from server.readmodels.share.bundle import BundleError, module_graph
from server.readmodels.share.html import embed_json, replay_html, web_dir

GOLDEN = Path(__file__).resolve().parents[3] / "data" / "records"


def _modules(page: str) -> dict[str, str]:
    found = re.search(r'<script type="importmap">(.*?)</script>', page, re.DOTALL)
    assert found is not None
    imports = json.loads(found.group(1))["imports"]
    prefix = "data:text/javascript;base64,"
    return {k: base64.b64decode(v.removeprefix(prefix)).decode() for k, v in imports.items()}


def test_the_replay_page_graph_is_every_module_it_imports_with_bare_specifiers() -> None:
    graph = module_graph(web_dir(), ["js/offline.js", "js/replay.js"])
    assert {"js/replay.js", "js/board.js", "js/i18n.js", "js/share.js"} <= set(graph.sources)
    assert any(path.startswith("vendor/socket.io-client") for path in graph.sources)
    for path, source in graph.sources.items():
        specifiers = re.findall(r'^(?:import|export)\b[^;]*?from\s*"([^"]+)"', source, re.M)
        assert all(s.startswith("crapette/") for s in specifiers), (path, specifiers)
        assert "sourceMappingURL" not in source  # a viewer's browser would ask for the map
    imports = json.loads(graph.import_map())["imports"]
    assert set(imports) == {f"crapette/{path}" for path in graph.sources}


def test_a_module_importing_outside_web_is_refused(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "a.js").write_text('import { x } from "https://cdn.example/x.js";\n')
    with pytest.raises(BundleError, match="only files of web/"):
        module_graph(tmp_path, ["js/a.js"])
    (tmp_path / "js" / "a.js").write_text('import "./missing.js";\n')
    with pytest.raises(BundleError, match="missing.js"):
        module_graph(tmp_path, ["js/a.js"])


def test_embedded_json_cannot_close_its_script_element() -> None:
    data = {"players": ["</script><script>alert(1)</script>", "<!--"]}
    text = embed_json(data)
    assert "<" not in text
    assert json.loads(text) == data


def _golden(name: str) -> dict[str, object]:
    record: dict[str, object] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return record


def test_the_importer_reads_the_record_out_of_a_replay_file() -> None:
    record = _golden("classic-win-recycle")
    replay = {"match_id": record["match_id"], "frames": [], "analysis": {}, "live": True}
    page = replay_html(replay, {}, record, None)
    assert json.loads(record_text_of_html(page) or "") == record
    assert parse_record_file(page) == parse_record_file(json.dumps(record))
    offline = re.search(r'id="crapette-offline">(.*?)</script>', page, re.DOTALL)
    assert offline is not None
    assert json.loads(offline.group(1))["replay"]["live"] is False  # a file never follows play
    assert "/static/" not in page.replace('"/static/i18n/', "")  # no link to the server's files
    assert 'href="/' not in page  # no server to link to: the links lead nowhere
    with pytest.raises(RecordFormatError, match="holds no match record"):
        parse_record_file("<!doctype html><title>another page</title>")


@pytest.fixture(params=["in_process", "worker"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FlaskClient]:
    store = "memory://" if request.param == "in_process" else f"sqlite:///{tmp_path / 's.db'}"
    app, _socketio = create_app(ServerConfig(async_mode="threading", store_url=store))
    yield app.test_client()
    workers = app.extensions["crapette"].reads.workers
    if workers is not None:
        workers.close()


def test_the_replay_file_over_http_is_a_download_cached_by_version(client: FlaskClient) -> None:
    body = (GOLDEN / "classic-win-recycle.json").read_bytes()
    match_id = client.post("/api/records", data=body).get_json()["match_id"]
    response = client.get(f"/api/matches/{match_id}/replay.html")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert "attachment" in response.headers["Content-Disposition"]
    page = response.get_data(as_text=True)
    assert 'href="http://localhost/rules"' in page  # links lead back to the server
    assert parse_record_file(page)["match_id"] == match_id
    again = client.get(
        f"/api/matches/{match_id}/replay.html", headers={"If-None-Match": response.get_etag()[0]}
    )
    assert again.status_code == 304
    missing = client.get("/api/matches/no-such/replay.html")
    assert missing.status_code == 404
    assert missing.get_json()["code"] == "not_found"


def test_export_html_then_import_and_verify_it(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    runner = CliRunner()
    golden = str(GOLDEN / "classic-calls-resign.json")
    assert runner.invoke(main, ["import", golden, "--store", store]).exit_code == 0
    match_id = _golden("classic-calls-resign")["match_id"]
    out = tmp_path / "replay.html"
    result = runner.invoke(
        main, ["export", str(match_id), "--format", "html", "--store", store, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "crapette/js/replay.js" in _modules(out.read_text(encoding="utf-8"))
    verify = runner.invoke(main, ["verify", str(out)])
    assert verify.exit_code == 0, verify.output
    other = f"sqlite:///{tmp_path / 'b.db'}"
    imported = runner.invoke(main, ["import", str(out), "--store", other])
    assert imported.exit_code == 0, imported.output
    missing = runner.invoke(main, ["export", "nope", "--format", "html", "--store", store])
    assert missing.exit_code == 1
    assert "no match 'nope'" in missing.output
    both = runner.invoke(main, ["export", "--all", "--format", "html", "--store", store])
    assert both.exit_code == 2


def test_the_file_holds_the_analysis_when_given_one_and_not_otherwise() -> None:
    from server.readmodels.share.html import analysis_of_html

    record = _golden("classic-win-recycle")
    replay = {"match_id": record["match_id"], "frames": [], "analysis": {}, "live": False}
    bare = replay_html(replay, {}, record, None)
    assert analysis_of_html(bare) is None
    assert 'id="crapette-analysis"' not in bare
    analysis = {"match_id": record["match_id"], "games": [{"decisions": [], "note": "</script>"}]}
    page = replay_html(replay, {}, record, None, analysis=analysis)
    assert analysis_of_html(page) == analysis
    assert parse_record_file(page) == parse_record_file(json.dumps(record))  # import reads on


def test_export_html_embeds_a_kept_analysis_and_builds_one_when_asked(tmp_path: Path) -> None:
    from records.export import export_match
    from server.readmodels.analysis_build import read_cached, record_hash
    from server.readmodels.share.html import analysis_of_html

    store = f"sqlite:///{tmp_path / 'a.db'}"
    runner = CliRunner()
    golden = str(GOLDEN / "classic-calls-resign.json")
    assert runner.invoke(main, ["import", golden, "--store", store]).exit_code == 0
    match_id = str(_golden("classic-calls-resign")["match_id"])
    out = tmp_path / "replay.html"
    args = ["export", match_id, "--format", "html", "--store", store, "-o", str(out)]
    assert runner.invoke(main, args).exit_code == 0
    assert analysis_of_html(out.read_text(encoding="utf-8")) is None  # none kept, none built
    result = runner.invoke(main, [*args, "--analysis", "--depth", "quick"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    analysis = analysis_of_html(page)
    assert analysis["match_id"] == match_id and analysis["depth"] == "quick"
    assert analysis["games"] and "decisions" in analysis["games"][0]
    # Kept beside the store, as the server keeps it: the next export embeds it unasked.
    from eventstore import open_store

    kept = read_cached(str(tmp_path / "a.db.analyses"), "", "quick", 0)
    assert kept is None
    record = export_match(open_store(store), match_id)
    cache = str(tmp_path / "a.db.analyses")
    assert read_cached(cache, record_hash(record), "quick", 0) is not None
    assert runner.invoke(main, args).exit_code == 0
    assert analysis_of_html(out.read_text(encoding="utf-8")) == analysis
    assert runner.invoke(main, ["verify", str(out)]).exit_code == 0
    other = f"sqlite:///{tmp_path / 'b.db'}"
    assert runner.invoke(main, ["import", str(out), "--store", other]).exit_code == 0
    bad = runner.invoke(main, ["export", match_id, "--analysis", "--store", store])
    assert bad.exit_code == 2
