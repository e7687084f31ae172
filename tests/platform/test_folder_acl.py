"""A folder MediaDesk creates outside the user's profile on Windows gets an ACL of the user's alone (its mode
cannot say it there); under the profile the inherited ACL already is. The command and the decision are
checked here; the call itself runs only on Windows."""

from __future__ import annotations

from mediadesk.platform.files import outside_user_profile, private_acl_command

WIN = {"USERPROFILE": "/home/ops/Profile", "USERNAME": "ops", "USERDOMAIN": "DESK-7"}


def test_only_folders_outside_the_profile_need_an_acl() -> None:
    assert not outside_user_profile("/home/ops/Profile/AppData/MediaDesk", WIN)
    assert not outside_user_profile("/home/ops/Profile", WIN)
    assert outside_user_profile("/home/ops/Profile-shared/MediaDesk", WIN)  # a sibling, not inside
    assert outside_user_profile("/srv/shared/MediaDesk", WIN)
    assert outside_user_profile("/srv/shared/MediaDesk", {})  # no profile known: restrict


def test_the_acl_is_the_users_and_systems_alone_and_inherited() -> None:
    cmd = private_acl_command("/srv/shared/MediaDesk", WIN)
    assert cmd[:3] == ["icacls", "/srv/shared/MediaDesk", "/inheritance:r"]
    assert cmd[3:] == ["/grant:r", "DESK-7\\ops:(OI)(CI)F", "/grant:r", "*S-1-5-18:(OI)(CI)F"]
    assert private_acl_command("x", {"USERNAME": "ops"})[4] == "ops:(OI)(CI)F"
