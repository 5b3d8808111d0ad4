"""Instructor side of the course pack: nbgrader configuration, build and hidden-test helpers.

Students never receive this package. Hidden-test cells call ``check_*`` helpers from an
assignment's ``autograder.assignments.<assignment>.checks``; each helper is a *probe* (runs the student's function on
generated plain-data cases) followed by a *judge* (compares with the reference solution,
which is read from the source notebooks in ``assignments/``).
"""
