"""The grader's one error for a step that cannot run, apart so that any module may raise it without
importing the pipeline (``grading_lock``, which the pipeline imports)."""


class GraderError(RuntimeError):
    """A step cannot run (missing gradebook, unknown assignment, ...): the message says what to do."""
