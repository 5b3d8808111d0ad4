"""nbgrader's commands forked from a preloaded server (autograder.launcher) behave as `python -m nbgrader`."""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from autograder import launcher, pipeline


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return pipeline.Course.workspace(tmp_path_factory.mktemp("launcher") / "ws")


def env_for(**extra):
    return {**os.environ, "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]), **extra}


def by_exec(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("args", [["db", "student", "list"], ["autograde", "nosuch", "--force"], ["--version"]])
def test_output_and_status_are_those_of_python_m_nbgrader(course, args):
    env = env_for()
    forked, executed = launcher.run(args, course.config_dir, env, check=False, capture=True), by_exec(args, course.config_dir, env)
    assert (forked.returncode, forked.stdout) == (executed.returncode, executed.stdout)
    assert forked.stderr.splitlines()[-1:] == executed.stderr.splitlines()[-1:]  # the same last word (paths, times differ)


def test_a_failure_raises_with_check_and_its_output_comes_back(course):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        launcher.run(["autograde", "nosuch", "--force"], course.config_dir, env_for(), capture=True)
    assert failed.value.returncode == 1 and "No notebooks were matched" in failed.value.stderr


def test_each_command_gets_exactly_its_environment_and_folder(course, tmp_path, capfd):
    config = tmp_path / "nbgrader_config.py"  # a config that reports what the command sees, then stops it
    (tmp_path / "course_helper.py").write_text("MARK = 'beside the config'\n")  # importable as with python -m
    config.write_text("import os, sys\nfrom course_helper import MARK\n"
                      "print('SEEN', os.getcwd(), os.environ.get('LAUNCHER_MARK'), "
                      "'HOME' in os.environ, os.getppid() != %d, MARK, flush=True)\nsys.exit(3)\n" % os.getpid())
    env = {key: value for key, value in env_for(LAUNCHER_MARK="one").items() if key != "HOME"}
    done = launcher.run(["db", "student", "list"], tmp_path, env, check=False, capture=True)
    assert f"SEEN {tmp_path} one False True beside the config" in done.stdout and done.returncode == 3
    again = launcher.run(["db", "student", "list"], tmp_path, env_for(LAUNCHER_MARK="two"), check=False)
    assert again.stdout is None and f"SEEN {tmp_path} two True True" in capfd.readouterr().out  # copied, not kept
    executed = by_exec(["db", "student", "list"], tmp_path, env)
    assert f"SEEN {tmp_path} one False" in executed.stdout and executed.returncode == 3  # what python -m nbgrader does


# a config that writes its process's pid (whole: the file appears with its content, however busy the machine
# is) and then blocks
SLEEPING_CONFIG = "import os, time\nopen('pid.part', 'w').write(str(os.getpid()))\nos.replace('pid.part', 'pid')\ntime.sleep(60)\n"


@pytest.fixture
def default_sigint():
    """SIGINT as a shell's command has it, for this test: an earlier test of the same worker may have left
    it ignored (seen in fresh-clone suite runs), and a command takes SIGINT as its caller has it."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_command_past_its_timeout_is_killed_and_one_killed_by_a_signal_reports_it(tmp_path, default_sigint):
    (tmp_path / "nbgrader_config.py").write_text(SLEEPING_CONFIG)
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        launcher.run(["db", "student", "list"], tmp_path, env_for(), timeout=2)
    assert time.monotonic() - started < 30
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped
    (tmp_path / "pid").unlink()

    def interrupt():
        while not (tmp_path / "pid").exists():
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(int((tmp_path / "pid").read_text()), signal.SIGINT)  # what Ctrl-C sends it

    # the server started by a thread that blocks SIGINT (as some libraries' threads do): a command still takes
    # SIGINT as its caller has it, here neither ignored nor blocked
    launcher._the_server().process.kill()
    launcher._the_server().process.wait()

    def start_blocked():
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
        launcher.run(["--version"], tmp_path, env_for(), check=False, capture=True)

    starter = threading.Thread(target=start_blocked)
    starter.start()
    starter.join()
    (tmp_path / "pid").unlink(missing_ok=True)  # that command's, if it wrote one: the interrupt waits for the next
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    threading.Thread(target=interrupt).start()
    done = launcher.run(["db", "student", "list"], tmp_path, env_for(), check=False, capture=True)
    assert done.returncode == -signal.SIGINT  # as `python -m nbgrader` dies of an unhandled Ctrl-C


def test_a_command_does_not_outlive_its_server_and_the_next_one_gets_a_new_server(tmp_path, course):
    (tmp_path / "nbgrader_config.py").write_text(SLEEPING_CONFIG)
    done = {}
    caller = threading.Thread(target=lambda: done.update(
        result=launcher.run(["db", "student", "list"], tmp_path, env_for(), check=False, capture=True)))
    caller.start()
    while not (tmp_path / "pid").exists():
        time.sleep(0.05)
    pid = int((tmp_path / "pid").read_text())
    launcher._the_server().process.kill()  # the server dies mid-command
    caller.join(30)
    assert not caller.is_alive() and done["result"].returncode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the command outlived its server")
    again = launcher.run(["db", "student", "list"], course.config_dir, env_for(), check=False, capture=True)
    assert again.returncode == 0
