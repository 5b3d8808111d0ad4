"""The grading content of each assignment, one folder per assignment (named as in ``assignments/``).

A folder holds ``checks.py`` (cases, data schemas and judges: never enters a kernel), ``probes.py``
(the probe half of each hidden test: the only file of the folder copied into that assignment's
sandbox) and ``examples.py`` (example submissions with the grades they must get); part 1 adds
``cases.py`` (tic-tac-toe case builders that part 2 reuses). The grader's machinery finds these
folders by name; it never imports one of them by a literal name.
"""
