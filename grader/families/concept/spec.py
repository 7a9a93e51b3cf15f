"""The spec of a concept-check sheet: the items students answer in a YAML file.

A concept check asks about ideas, not runs: which option is right (``choice``), which three
options to strike and which one survives (``rule-out``), which description goes with which
term (``match``), an answer written before any option is seen (``short``), and the blank
cells of a table to refill (``table``). Every item carries the lesson's explanation of its
answer (``why``) and, for the wrong options that tempt people, why they do (``tempts``). Each
student's sheet shows the options and descriptions in an order of their own
(:mod:`grader.families.concept.variants`); option ids are the author's and never shown.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from grader.families.api import ConfigDict, Exercise, Field, Identifier, Milestone, SpecModel



class Option(SpecModel):
    """One option of a choice or rule-out item."""

    id: Identifier
    """The author's name for the option (students see a letter drawn for them instead)."""
    text: str = Field(min_length=1)
    """The option as the sheet prints it."""
    tempts: str = ""
    """Why a student might pick this wrong option, and what it gets wrong."""


class ItemBase(SpecModel):
    id: Identifier
    """The item's name; its key in the answers file is this with - as _."""
    prompt: str = Field(min_length=1)
    """The question, as the sheet prints it."""
    source: str = ""
    """Where the item comes from in the lesson (e.g. "deck, slide 35")."""
    why: str = Field(min_length=1)
    """The explanation of the right answer, shown with the feedback."""

    @property
    def key(self) -> str:
        return self.id.replace("-", "_")


class ChoiceItem(ItemBase):
    """Pick the one right option."""

    type: Literal["choice"]
    """choice: the student picks the one right option."""
    options: list[Option] = Field(min_length=2, max_length=26)
    """The options (2 to 26), shown to each student in an order of their own."""
    answer: Identifier
    """The id of the right option."""


class RuleOutItem(ItemBase):
    """Strike every wrong option and name the one that survives."""

    type: Literal["rule-out"]
    """rule-out: the student strikes every wrong option and names the survivor."""
    options: list[Option] = Field(min_length=3, max_length=26)
    """The options (3 to 26), shown to each student in an order of their own."""
    answer: Identifier
    """The id of the option that survives."""


class MatchItem(ItemBase):
    """Give each term its description: a one-to-one matching, or a sort into groups when
    several terms share a description."""

    type: Literal["match"]
    """match: the student gives each term its description."""
    pairs: dict[str, str] = Field(min_length=2)
    """Each term and its description; terms sharing a description sort into one group."""


class ShortAnswer(SpecModel):
    """A wrong short answer the lesson expects, and what it shows."""

    answer: str = Field(min_length=1)
    """The wrong answer, compared as the right ones are."""
    hint: str = Field(min_length=1)
    """What the wrong answer shows, given as feedback."""


class ShortItem(ItemBase):
    """Answer in a word, with no options to choose from."""

    type: Literal["short"]
    """short: the student answers in a word, with no options shown."""
    accept: list[str] = Field(min_length=1)
    """The right answers; compared without case, spaces, brackets or punctuation."""
    known_wrong: list[ShortAnswer] = Field(default_factory=list)
    """Wrong answers the lesson expects, each with the hint it gets."""


class Column(SpecModel):
    """A column of a table item that students refill."""

    name: str = Field(min_length=1)
    """The column's header, as the sheet prints it."""
    key: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    """Its key in the answers file (lowercase letters, digits and _)."""
    tolerance: float = Field(default=0.0, ge=0, lt=1)
    """The relative error accepted (0: exact)."""


class TableItem(ItemBase):
    """Refill the blank columns of a table, one row per entry; each cell earns its part."""

    type: Literal["table"]
    """table: the student refills the blank columns of a table."""
    shown: list[str] = Field(min_length=1)
    """The headers of the columns given, in order."""
    refill: list[Column] = Field(min_length=1)
    """The columns students refill, in order."""
    rows: dict[str, list[Union[int, float, str]]] = Field(min_length=1)
    """Each row's name, then its shown cells, then its refilled cells (the right values)."""


Item = Annotated[Union[ChoiceItem, RuleOutItem, MatchItem, ShortItem, TableItem],
                 Field(discriminator="type")]


class ConceptSettings(SpecModel):
    """How a concept sheet is read and what its feedback shows."""

    max_file_bytes: int = Field(default=65536, gt=0)
    """The largest answers file read, in bytes (a larger one is not graded)."""
    explain: bool = True
    """Whether feedback on a wrong answer gives the right one and the lesson's explanation
    (turn off while the sheet is open for resubmission)."""


class ConceptMilestone(Milestone):
    """A graded step of a concept sheet: the items it asks."""

    items: list[Identifier] = Field(default_factory=list)
    """The ids of the items this milestone grades."""


class ConceptExercise(Exercise):
    """A concept-check sheet: no code, answers in a YAML file, options shuffled per student."""

    model_config = ConfigDict(title="concept checks (an answers file, no code)")

    family: Literal["concept"] = "concept"
    """The family: concept (concept checks answered in a YAML file)."""
    answers: ConceptSettings = ConceptSettings.model_construct()
    """How the answers file is read and what feedback shows."""
    items: list[Item] = Field(min_length=1)  # type: ignore[valid-type]
    """The items of the sheet: choice, rule-out, match, short and table."""
    milestones: list[ConceptMilestone] = Field(min_length=1)  # type: ignore[assignment]
    """Graded steps, each naming the items it asks."""

    def item(self, item_id: str) -> Optional[ItemBase]:
        return next((item for item in self.items if item.id == item_id), None)
