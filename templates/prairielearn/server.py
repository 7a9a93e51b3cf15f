"""Give each new variant of this PrairieLearn question one student's own starting file.

``grade bundle prairielearn`` writes this file beside ``variants.json``, which holds starting
files drawn at build time with the course's secret, one per variant id (``pl-0001``, ...).
PrairieLearn calls ``generate`` once per variant: it picks one from the variant's seed and
puts its id and text in ``params``. ``question.html`` starts the editor from the text; the
grading job reads the id from ``/grade/data/data.json`` and grades that variant. Standard
library only: PrairieLearn runs this in its own Python, where the grader is not installed.
"""

import json
import os


def _variants(data):
    folder = (data.get("options") or {}).get("question_path")
    if not folder:
        folder = os.path.dirname(os.path.abspath(globals().get("__file__", "server.py")))
    with open(os.path.join(folder, "variants.json"), encoding="utf-8") as handle:
        return json.load(handle)


def generate(data):
    document = _variants(data)
    variants = document["variants"]
    chosen = variants[int(data["variant_seed"]) % len(variants)]
    data["params"][document["student_param"]] = chosen["student"]
    data["params"][document["sheet_param"]] = chosen["sheet"]
