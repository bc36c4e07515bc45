"""The vendored browser libraries are the npm packages' files, unmodified, with their licences;
and the client's own modules load nothing from outside the page's server."""

from __future__ import annotations

import hashlib
import json
import re

from tests.conftest import REPO_ROOT

VENDOR = REPO_ROOT / "web" / "vendor"


def recorded_hashes() -> dict[str, str]:
    text = (VENDOR / "README.md").read_text()
    return {path: digest for digest, path in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, re.M)}


def test_vendored_files_match_their_recorded_hashes() -> None:
    hashes = recorded_hashes()
    assert len(hashes) == 4
    for path, digest in hashes.items():
        assert hashlib.sha256((VENDOR / path).read_bytes()).hexdigest() == digest, path


# The licence each vendored package states; each is free to redistribute unmodified with its text.
LICENCES = {
    "socket.io-client": "MIT",
    "qrcode-generator": "MIT",
    "axe-core": "MPL-2.0",
    "dejavu-fonts-ttf": "SEE LICENSE IN README.md AND LICENSE",  # the Bitstream Vera licence
}


def test_each_vendored_package_has_its_version_and_licence() -> None:
    folders = [folder for folder in VENDOR.iterdir() if folder.is_dir()]
    assert len(folders) == len(LICENCES)
    for folder in folders:
        package = json.loads((folder / "package.json").read_text())
        assert folder.name == f"{package['name']}-{package['version']}"
        assert package["license"] == LICENCES[package["name"]], folder.name
        assert (folder / "LICENSE").exists(), folder.name
    axe = VENDOR / "axe-core-4.14.1"
    assert "Mozilla Public License, version 2.0" in (axe / "LICENSE").read_text()
    assert (axe / "LICENSE-3RD-PARTY.txt").exists()
    dejavu = VENDOR / "dejavu-fonts-ttf-2.37.3"
    assert "Bitstream Vera Fonts Copyright" in (dejavu / "LICENSE").read_text()
    assert (dejavu / "README.md").exists()


def test_every_vendored_script_is_hashed() -> None:
    """A file added to a vendored folder without its hash in the README would go unchecked."""
    hashes = recorded_hashes()
    for path in VENDOR.rglob("*.*js"):
        assert str(path.relative_to(VENDOR)) in hashes, path


def test_client_modules_import_nothing_from_the_internet() -> None:
    for path in (REPO_ROOT / "web").rglob("*"):
        if path.suffix not in (".js", ".html", ".css") or "vendor" in path.parts:
            continue
        text = path.read_text()
        assert not re.search(r"""(src|href|from|import\()\s*=?\s*["']https?://""", text), path
        assert "@import url(http" not in text, path
