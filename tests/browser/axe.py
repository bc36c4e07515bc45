"""axe-core (vendored, unmodified: web/vendor/README.md) run on a page of the client.

The script goes into the page from the file (no request leaves the machine); `serious_violations`
returns the violations of impact "serious" or "critical" (or of the impacts asked for, such as
MODERATE), each as one readable line."""

from __future__ import annotations

from typing import Any

from tests.conftest import REPO_ROOT

AXE = REPO_ROOT / "web" / "vendor" / "axe-core-4.14.1" / "axe.min.js"
SERIOUS = ("serious", "critical")
MODERATE = ("moderate", *SERIOUS)  # the table and replay pages are held to this too


def violations(page: Any) -> list[dict[str, Any]]:
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const result = await axe.run(document, {resultTypes: ["violations"]});
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
          }));
        }"""
    )
    return found


def serious_violations(page: Any, impacts: tuple[str, ...] = SERIOUS) -> list[str]:
    """The violations of these impacts (by default serious and critical), one line each."""
    lines = []
    for v in violations(page):
        if v["impact"] not in impacts:
            continue
        for node in v["nodes"][:5]:
            lines.append(
                f"{v['impact']} {v['id']} ({v['help']}): {node['target']}: {node['summary']}"
            )
    return lines
