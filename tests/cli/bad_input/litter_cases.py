"""Bad-input cases: what killed and interrupted runs leave behind (kill -9 / SIGTERM / SIGINT
during golden regenerate and golden check), stale temporaries, and the walkthrough's error maps."""
import os
import shutil
import signal
import subprocess
import time

from harness import SMALL, Skip, case, dead_pid


# ==== litter ===================================================================================

def kill_when(c, proc, ready, sig=signal.SIGKILL, limit=120.0, pause=0.002):
    """Sends `sig` to `proc` once `ready()` holds (or it has ended); returns whether it was sent."""
    end = time.time() + limit
    while proc.poll() is None and time.time() < end:
        if ready():
            proc.send_signal(sig)
            proc.wait()
            return True
        time.sleep(pause)
    proc.wait()
    return False


def golden_count(fx):
    return len([n for n in os.listdir(os.path.join(fx, "golden")) if n.endswith(".h5")])


def writing(fx):
    return any(".tmp." in n for n in os.listdir(os.path.join(fx, "golden")))


def kill_regeneration_repeatedly(c, fx):
    """Regenerates every committed case into an empty golden/ and kills it with SIGKILL in the
    middle of a write (a temporary file present) after 5, 40 and 80 files."""
    kills = 0
    for after in (5, 40, 80):
        shutil.rmtree(os.path.join(fx, "golden"))
        os.makedirs(os.path.join(fx, "golden"))
        p = c.start(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen"), "--force"])
        kills += kill_when(c, p, lambda: golden_count(fx) >= after and writing(fx), pause=0)
    c.check(kills > 0, "no regeneration was still running to be killed")


@case("litter")
def kill9_regenerate_then_regenerate(c):
    fx = c.fixtures_copy(golden=False)
    c.give(os.path.join(fx, "catalogue.txt")), c.give(os.path.join(fx, "MANIFEST.json"))
    kill_regeneration_repeatedly(c, fx)
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--generated", c.path("gen")]), 0, "MANIFEST.json: unchanged")
    c.expect(c.run(["golden", "check", "--fixtures", fx, "--generated", c.path("gen")]), 0, "all")


@case("litter")
def kill9_regenerate_then_check(c):
    fx = c.fixtures_copy(golden=False)
    c.give(os.path.join(fx, "catalogue.txt")), c.give(os.path.join(fx, "MANIFEST.json"))
    kill_regeneration_repeatedly(c, fx)
    c.run(["golden", "check", "--fixtures", fx, "--generated", c.path("gen")])  # fails: files missing


def planted_temporary(c):
    """A fixtures copy with what a kill -9 mid-write leaves in golden/: an empty temporary of a
    process that no longer exists."""
    fx = c.fixtures_copy()
    stale = os.path.join(fx, "golden", f".{SMALL}.h5.tmp.{dead_pid()}")
    open(stale, "w").close()
    c.give(os.path.join(fx, "MANIFEST.json"))
    c.give(os.path.join(fx, "golden", SMALL + ".h5"))
    return fx, stale


@case("litter")
def a_killed_regenerations_temporary_is_removed_by_regenerate(c):
    fx, stale = planted_temporary(c)
    c.expect(c.run(["golden", "regenerate", "--fixtures", fx, "--case", SMALL]), 0, "MANIFEST.json: unchanged")
    c.check(not os.path.exists(stale), "the killed run's temporary is still in golden/")


@case("litter")
def a_killed_regenerations_temporary_is_removed_by_check(c):
    fx, stale = planted_temporary(c)
    c.expect(c.run(["golden", "check", "--fixtures", fx]), 0, "golden check:")
    c.check(not os.path.exists(stale), "the killed run's temporary is still in golden/")


def scratch_dirs(tmp):
    return [n for n in os.listdir(tmp) if n.startswith("tilecheck-golden-check-")]


def interrupted_check(c, sig):
    tmp = c.directory("tmp")
    p = c.start(["golden", "check"], env={"TMPDIR": tmp})
    c.check(kill_when(c, p, lambda: scratch_dirs(tmp), sig), "the check ended before it could be interrupted")
    c.check(p.returncode == -sig, f"exit {p.returncode}, expected death by signal {sig}")
    return tmp


@case("litter")
def kill9_check_then_check(c):
    tmp = interrupted_check(c, signal.SIGKILL)
    c.expect(c.run(["golden", "check"], env={"TMPDIR": tmp}), 0, "golden check:")
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def sigterm_check_removes_its_scratch_directory(c):
    tmp = interrupted_check(c, signal.SIGTERM)
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def sigint_check_removes_its_scratch_directory(c):
    tmp = interrupted_check(c, signal.SIGINT)
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def a_dead_runs_temporary_is_removed_by_the_next_write(c):
    out = c.output(zero_tile=True)
    stale = c.path(f".r.h5.tmp.{dead_pid()}")
    open(stale, "w").close()
    c.expect(c.run(["compare", "--fixture", SMALL, "--output", out, "--report", "r.h5"]), 1, "Mismatched")
    c.check(not os.path.exists(stale), "the stale temporary is still there")


@case("litter")
def a_dead_checks_scratch_directory_is_removed_by_the_next_check(c):
    tmp = c.directory("tmp")
    os.makedirs(os.path.join(tmp, f"tilecheck-golden-check-{dead_pid()}"))
    c.expect(c.run(["golden", "check"], env={"TMPDIR": tmp}), 0, "golden check:")
    c.check(not scratch_dirs(tmp), f"scratch directories left: {scratch_dirs(tmp)}")


@case("litter")
def walkthrough_error_maps_are_ignored_by_git(c):
    if not os.path.isdir(os.path.join(c.args.source, ".git")) and not os.path.isfile(
            os.path.join(c.args.source, ".git")):
        raise Skip("the source tree is not a git checkout")
    p = subprocess.run(["git", "-C", c.args.source, "check-ignore", "-q", "tilecheck-errmaps/x.errmap.h5"])
    c.check(p.returncode == 0, "tilecheck-errmaps/ (the default --errmaps of the README walkthrough) is not ignored")


@case("litter")
def a_passing_run_makes_no_error_map_directory(c):
    rec = c.recording()
    c.expect(c.run(["run", "--recording", rec]), 0, "2 cells: 2 pass")
    c.check(not os.path.exists(c.path("tilecheck-errmaps")), "tilecheck-errmaps/ was created for no error map")
