"""Validating an RO-Crate with the published validator (roc-validator), offline.

The validator fetches the crate's JSON-LD context (``https://w3id.org/ro/crate/1.1/
context``) over the network, which these machines do not reach. Offline, its HTTP
requests are answered here: the context is the RO-Crate context the ``rocrate`` library
ships (1.3) with the four terms 1.3 maps elsewhere put back where 1.1 maps them
(``ComputationalWorkflow``, ``FormalParameter``, ``input``, ``output``: Bioschemas); any
other URL is refused (so a check that needs the network fails instead of passing).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from unittest import mock

from analysis.report.checkrelease import CONTEXT_1_1, context_1_1  # noqa: F401


@contextlib.contextmanager
def offline_http(documents: dict[str, dict]):
    """The validator's HTTP requests answered from ``documents`` (URL -> JSON); the URLs
    it asked for and did not get are collected in the yielded list."""
    import requests
    from rocrate_validator.utils import http

    refused: list[str] = []

    def get(self, url, *args, **kwargs):
        response = requests.Response()
        response.url = url
        if url in documents:
            response.status_code = 200
            response._content = json.dumps(documents[url]).encode()
            response.headers["Content-Type"] = "application/ld+json"
        else:
            refused.append(url)
            response.status_code = 504
            response._content = b""
        return response

    # the requester hands .get to its session (__getattr__): answer it on the class
    with mock.patch.object(http.HttpRequester, "get", get, create=True):
        yield refused


def validate_crate(folder: Path, profile: str = "workflow-run-crate-0.5",
                   severity: str = "REQUIRED") -> tuple[bool, list[str], list[str]]:
    """(passed, the issues as text, the URLs refused) of the crate in ``folder`` against
    ``profile`` (and the profiles it extends) at ``severity``."""
    return CrateValidator(profile, severity)(folder)


class CrateValidator:
    """The validator for ``profile`` at ``severity``, made once for several crates: it
    prepares the profiles (their shapes and ontologies) on its first crate and reuses
    them. A run at a level also runs every check of the levels above it, each issue
    naming its own (``REQUIRED ...``, ``RECOMMENDED ...``): one run at RECOMMENDED tells
    whether a crate passes at REQUIRED too (:func:`at_level`)."""

    def __init__(self, profile: str = "workflow-run-crate-0.5", severity: str = "REQUIRED"):
        from rocrate_validator.models.validation import Validator

        self.validator = Validator({"profile_identifier": profile,
                                    "requirement_severity": severity})

    def __call__(self, folder: Path) -> tuple[bool, list[str], list[str]]:
        """(passed, the issues as text, the URLs refused) of the crate in ``folder``."""
        with offline_http({CONTEXT_1_1: context_1_1()}) as refused:
            result = self.validator.validate(rocrate_uri=str(folder))
        issues = [f"{i.severity.name} {i.check.identifier} {i.check.name}: {i.message}"
                  for i in result.get_issues()]
        return result.passed(), issues, refused


def at_level(issues: list[str], severity: str) -> list[str]:
    """Those of ``issues`` (as :class:`CrateValidator` gives them) that a run at
    ``severity`` reports: the issues of that level and of the levels above it."""
    from rocrate_validator.models.severity import Severity

    return [i for i in issues if Severity[i.split()[0]] >= Severity[severity]]
