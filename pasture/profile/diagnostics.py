"""One problem found in a profile, located and phrased so its author can act on it."""

from __future__ import annotations

from dataclasses import dataclass

from pasture import PastureError


@dataclass(frozen=True)
class Problem:
    file: str  # path relative to the project root, '/' separated
    line: int
    col: int
    contract: str  # contract id, or the folder name when the id itself is unreadable
    row: str | None  # event row / operation / capability the problem belongs to
    field: str | None
    message: str  # names the bad value and, for vocabularies, the allowed members
    fix: str  # what to do

    def render(self) -> str:
        where = self.contract
        if self.row:
            where += f" {self.row}"
        if self.field:
            where += f" field '{self.field}'"
        return f"{self.file}:{self.line}:{self.col}: {where}: {self.message}\n  fix: {self.fix}"

    def as_json(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "contract": self.contract,
            "row": self.row,
            "field": self.field,
            "message": self.message,
            "fix": self.fix,
        }


class ProfileErrors(PastureError):
    """Raised when any profile is invalid: carries every problem, not only the first."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} profile problem(s)")
        self.problems = problems
