"""Accounts: sign up, sign in and out, change the password, delete, download one's data.

Passwords are hashed with Argon2id (``pwdlib``); a session is a random token in an HttpOnly,
SameSite=Lax cookie (Secure over https) of which the database keeps only the SHA-256. Every
state-changing request made with a session carries the session's CSRF token in the
``X-CSRF-Token`` header; sign-up and sign-in, which have no session yet, are refused when
the browser says they come from another site. Failed sign-ins are throttled per account and
per address, sign-ups per address; an unknown user and a wrong password get the same answer
(after the same work). Guests keep their games: a sign-up or sign-in may bring the seat tokens
the browser holds, and those seats become the account's.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Column, Float, ForeignKey, String, Table, delete, insert, select, update

from kseri.server import db
from kseri.server.throttles import THROTTLE_KEYS as THROTTLE_KEYS
from kseri.server.throttles import Throttle as Throttle
from kseri.server.throttles import Throttles

COOKIE = "kseri_session"
"""The session cookie's name."""
CSRF_HEADER = "X-CSRF-Token"
"""The header that carries the session's CSRF token on state-changing requests."""
SESSION_DAYS = 30
"""How long a session lasts."""
USERNAME_LENGTH = (3, 20)
PASSWORD_LENGTH = (8, 128)
USERNAME_PUNCTUATION = "_-."
DELETED_NAME = "deleted player"
"""What a deleted account's seats show."""
MAX_CLAIMS = 200
"""Seats one request may claim."""

users = Table(
    "users", db.metadata,
    Column("id", String(24), primary_key=True),
    Column("username", String(40), nullable=False),
    Column("username_key", String(80), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("created", Float, nullable=False),
)
sessions = Table(
    "sessions", db.metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", String(24), ForeignKey("users.id"), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)


class ErrorDetail(BaseModel):
    """What went wrong."""

    code: str
    message: str


class ErrorOut(BaseModel):
    """An error answer."""

    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route."""
    return {status: {"model": ErrorOut} for status in statuses}


class AccountError(Exception):
    """A request refused: an HTTP status, a code and a message meant for the person; where one
    code has several causes, ``reason`` and its figures come along, so that a page can say it
    in the person's language."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after
        self.extra = extra
        """More fields of the answer's ``error`` (the table a player is already in)."""

    def response(self) -> JSONResponse:
        """The error as the API answers it."""
        headers = {} if self.retry_after is None else {"Retry-After": str(max(1, round(self.retry_after)))}
        return JSONResponse({"error": {"code": self.code, "message": self.message, **self.extra}},
                            status_code=self.status, headers=headers)


def username_key(username: str) -> str:
    """The form two usernames share when they count as the same (NFKC, case folded)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


def check_username(username: str) -> str:
    """The username as stored (NFKC normalised), or :class:`AccountError` saying what is wrong."""
    name = unicodedata.normalize("NFKC", username)
    low, high = USERNAME_LENGTH
    if not low <= len(name) <= high:
        raise AccountError(422, "bad-username", f"a username has {low} to {high} characters, not {len(name)}",
                           reason="length", min=low, max=high)
    wrong = sorted({c for c in name if not (c.isalnum() or c in USERNAME_PUNCTUATION)})
    if wrong:
        shown = " ".join(repr(c) for c in wrong)
        raise AccountError(422, "bad-username", f"a username has letters, digits and {USERNAME_PUNCTUATION} "
                           f"only, not {shown}", reason="characters", allowed=USERNAME_PUNCTUATION,
                           wrong=shown)
    if not name[0].isalnum():
        raise AccountError(422, "bad-username", "a username starts with a letter or a digit", reason="start")
    return name


def check_password(password: str, username: str) -> None:
    """Refuse a password too short, too long, or the username itself."""
    low, high = PASSWORD_LENGTH
    if not low <= len(password) <= high:
        raise AccountError(422, "bad-password", f"a password has {low} to {high} characters",
                           reason="length", min=low, max=high)
    if username_key(password) == username_key(username):
        raise AccountError(422, "bad-password", "the password must not be the username", reason="username")


def token_digest(token: str) -> str:
    """What the database keeps of a session token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class User:
    """A signed-in account, as a request sees it."""

    id: str
    username: str
    csrf: str
    token_hash: str


class Accounts:
    """The accounts, their sessions and throttles, over the server's database."""

    def __init__(self, store: db.Store, signup_limit: int, signin_limit: int,
                 throttles: Throttles | None = None,
                 admit: Callable[[str], Awaitable[None]] | None = None) -> None:
        self.store = store
        self.admit = admit
        """Refuses a sign-up from a banned address, saying why (``moderation.check_admitted``)."""
        self.hasher = PasswordHash((Argon2Hasher(),))
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        throttles = throttles or Throttles(None)
        self.signups = throttles.window("signups", signup_limit, 3600)
        self.failures_by_account = throttles.window("signin-failures", signin_limit, 900)
        self.failures_by_address = throttles.window("signin-failures-address", 5 * signin_limit, 900)

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, password: str, digest: str) -> bool:
        return await asyncio.to_thread(self.hasher.verify, password, digest)

    async def sign_up(self, username: str, password: str, address: str) -> tuple[User, str]:
        """A new account and its first session's token."""
        name = check_username(username)
        check_password(password, name)
        if self.admit is not None:
            await self.admit(address)
        wait = await self.signups.wait(address)
        if wait:
            raise AccountError(429, "throttled", "too many new accounts from this address; try later", wait,
                               reason="signups")
        key = username_key(name)
        async with self.store.engine.connect() as connection:
            taken = (await connection.execute(select(users.c.id).where(users.c.username_key == key))).first()
        if taken is not None:
            raise AccountError(409, "username-taken", f"the username {name!r} is taken", username=name)
        digest = await self._hash(password)
        user_id = secrets.token_urlsafe(12)
        try:
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(users).values(
                    id=user_id, username=name, username_key=key, password_hash=digest, created=time.time()))
        except Exception as error:  # the unique key: someone took it meanwhile
            if "unique" in str(error).lower() or "duplicate" in str(error).lower():
                raise AccountError(409, "username-taken", f"the username {name!r} is taken",
                                   username=name) from None
            raise
        await self.signups.hit(address)
        return await self._open_session(user_id, name)

    async def sign_in(self, username: str, password: str, address: str) -> tuple[User, str]:
        """A new session for the account, or one answer for an unknown user or a wrong password."""
        key = username_key(username)
        wait = max(await self.failures_by_account.wait(key), await self.failures_by_address.wait(address))
        if wait:
            raise AccountError(429, "throttled", "too many failed sign-ins; try again later", wait,
                               reason="signins")
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(
                select(users.c.id, users.c.username, users.c.password_hash).where(users.c.username_key == key)
            )).first()
        good = await self._verify(password, row[2] if row else self._dummy)
        if row is None or not good:
            await self.failures_by_account.hit(key)
            await self.failures_by_address.hit(address)
            raise AccountError(401, "bad-credentials", "wrong username or password")
        await self.failures_by_account.clear(key)
        return await self._open_session(row[0], row[1])

    async def _open_session(self, user_id: str, username: str) -> tuple[User, str]:
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        now = time.time()
        async with self.store.engine.begin() as connection:
            await connection.execute(insert(sessions).values(
                token_hash=token_digest(token), user_id=user_id, csrf=csrf, created=now,
                expires=now + SESSION_DAYS * 86400))
        return User(user_id, username, csrf, token_digest(token)), token

    async def user_of(self, token: str | None) -> User | None:
        """The account a session cookie signs in, or ``None``."""
        if not token or len(token) > 100:
            return None
        digest = token_digest(token)
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(
                select(users.c.id, users.c.username, sessions.c.csrf, sessions.c.expires)
                .join(sessions, sessions.c.user_id == users.c.id).where(sessions.c.token_hash == digest)
            )).first()
        if row is None:
            return None
        if row[3] < time.time():
            async with self.store.engine.begin() as connection:
                await connection.execute(delete(sessions).where(sessions.c.token_hash == digest))
            return None
        return User(row[0], row[1], row[2], digest)

    async def sign_out(self, user: User) -> None:
        """End this session."""
        async with self.store.engine.begin() as connection:
            await connection.execute(delete(sessions).where(sessions.c.token_hash == user.token_hash))

    async def change_password(self, user: User, current: str, new: str) -> None:
        """Set a new password (the current one confirms it); every other session ends."""
        await self._confirm(user, current)
        check_password(new, user.username)
        digest = await self._hash(new)
        async with self.store.engine.begin() as connection:
            await connection.execute(update(users).where(users.c.id == user.id).values(password_hash=digest))
            await connection.execute(delete(sessions).where(
                sessions.c.user_id == user.id, sessions.c.token_hash != user.token_hash))

    async def _confirm(self, user: User, password: str) -> None:
        async with self.store.engine.connect() as connection:
            digest = (await connection.execute(
                select(users.c.password_hash).where(users.c.id == user.id))).scalar_one()
        if not await self._verify(password, digest):
            raise AccountError(403, "bad-credentials", "the password is wrong", reason="password")

    async def delete(self, user: User, password: str, forget: Iterable[Table | Column[Any]]) -> None:
        """Remove the account, its sessions and the rows of ``forget`` (a table: by its
        ``user_id``; a column: the rows naming the account there); its seats stay in their
        games, shown as a deleted player."""
        await self._confirm(user, password)
        async with self.store.engine.begin() as connection:
            await connection.execute(update(db.seats).where(db.seats.c.user_id == user.id)
                                     .values(user_id=None, name=DELETED_NAME))
            for item in forget:
                column = item.c.user_id if isinstance(item, Table) else item
                await connection.execute(delete(column.table).where(column == user.id))
            await connection.execute(delete(sessions).where(sessions.c.user_id == user.id))
            await connection.execute(delete(users).where(users.c.id == user.id))

    async def profile_row(self, user_id: str) -> dict[str, Any]:
        """The account's fields (not its password hash) and its sessions' times (not their tokens)."""
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(
                select(users.c.id, users.c.username, users.c.created).where(users.c.id == user_id)
            )).mappings().one()
            times = (await connection.execute(
                select(sessions.c.created, sessions.c.expires).where(sessions.c.user_id == user_id)
                .order_by(sessions.c.created))).mappings().all()
        return {**row, "sessions": [dict(t) for t in times]}

    async def claim(self, user: User, grants: Iterable[tuple[str, str]]) -> list[dict[str, Any]]:
        """Make the seats these ``(table, token)`` pairs hold the account's (seats already held
        by another account are left alone); the seats claimed."""
        claimed, new = [], []
        async with self.store.engine.connect() as connection:
            for table_id, token in grants:
                digest = hashlib.sha256(token.encode()).hexdigest()
                rows = (await connection.execute(
                    select(db.seats.c.seat, db.seats.c.token_hash, db.seats.c.user_id)
                    .where(db.seats.c.table_id == table_id))).all()
                for seat, stored, owner in rows:
                    mine = owner in (None, user.id)
                    if stored is not None and hmac.compare_digest(stored, digest) and mine:
                        claimed.append({"table": table_id, "seat": seat})
                        if owner is None:
                            new.append(claimed[-1])
        if new:
            batch = db.Batch()
            for entry in new:
                batch.updates.append(db.set_seat(entry["table"], entry["seat"], user_id=user.id))
            await self.store.write(batch)
        return claimed


# -- HTTP -----------------------------------------------------------------------------------------

class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatClaim(_Body):
    """A seat this browser holds: its table and token."""

    table: Annotated[str, Field(min_length=1, max_length=40)]
    token: Annotated[str, Field(min_length=1, max_length=100)]


Claims = Annotated[list[SeatClaim], Field(max_length=MAX_CLAIMS)]


class Credentials(_Body):
    """A username and a password, and the seats a guest brings along."""

    username: Annotated[str, Field(min_length=1, max_length=100)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]
    seats: Claims = []


class PasswordChange(_Body):
    """The current password and the new one."""

    current: Annotated[str, Field(min_length=1, max_length=1024)]
    new: Annotated[str, Field(min_length=1, max_length=1024)]


class PasswordConfirmation(_Body):
    """The password, to confirm a deletion."""

    password: Annotated[str, Field(min_length=1, max_length=1024)]


class SeatsBody(_Body):
    """Seats to claim for the signed-in account."""

    seats: Claims


class AccountOut(BaseModel):
    """The signed-in account and the token its state-changing requests send as X-CSRF-Token."""

    id: str
    username: str
    csrf: str
    claimed: list[dict[str, Any]] = []


def accounts_of(request: Request) -> Accounts:
    """The server's :class:`Accounts`."""
    accounts: Accounts = request.app.state.players.accounts
    return accounts


async def optional_user(request: Request) -> User | None:
    """The signed-in account of a request, if any."""
    return await accounts_of(request).user_of(request.cookies.get(COOKIE))


async def signed_in(request: Request) -> User:
    """The signed-in account (401 otherwise)."""
    user = await optional_user(request)
    if user is None:
        raise AccountError(401, "not-signed-in", "sign in first")
    return user


async def checked_user(request: Request) -> User:
    """The signed-in account of a state-changing request, its CSRF token checked (403 otherwise)."""
    user = await signed_in(request)
    sent = request.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(sent.encode(), user.csrf.encode()):
        raise AccountError(403, "bad-csrf", f"send the session's CSRF token in the {CSRF_HEADER} header")
    return user


def same_site(request: Request) -> None:
    """Refuse a request the browser marks as coming from another site (login forgery)."""
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    own = f"{request.url.scheme}://{request.url.netloc}"
    if site not in (None, "same-origin", "none") or (origin is not None and origin != own):
        raise AccountError(403, "cross-site", "this request must come from the kseri page itself")


def address_of(request: Request) -> str:
    """The client's address (the throttles' key)."""
    return request.client.host if request.client else "unknown"


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    """The session cookie: HttpOnly, SameSite=Lax, Secure over https."""
    response.set_cookie(COOKIE, token, max_age=SESSION_DAYS * 86400, path="/", httponly=True,
                        samesite="lax", secure=request.url.scheme == "https")


def clear_session_cookie(request: Request, response: Response) -> None:
    """Remove the session cookie."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=request.url.scheme == "https")


CheckedUser = Annotated[User, Depends(checked_user)]
SignedIn = Annotated[User, Depends(signed_in)]

router = APIRouter(prefix="/api/account", tags=["accounts"])


async def _entered(request: Request, response: Response, user: User, token: str,
                   seats: list[SeatClaim]) -> dict[str, Any]:
    set_session_cookie(request, response, token)
    claimed = await request.app.state.players.claim(user, [(s.table, s.token) for s in seats])
    return {"id": user.id, "username": user.username, "csrf": user.csrf, "claimed": claimed}


@router.post("/signup", status_code=201, response_model=AccountOut, responses=errors(403, 409, 422, 429))
async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Create an account and sign in; the seats the guest brings become the account's."""
    same_site(request)
    user, token = await accounts_of(request).sign_up(body.username, body.password, address_of(request))
    return await _entered(request, response, user, token, body.seats)


@router.post("/signin", response_model=AccountOut, responses=errors(401, 403, 422, 429))
async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Sign in (the session cookie is set); the seats brought along become the account's."""
    same_site(request)
    user, token = await accounts_of(request).sign_in(body.username, body.password, address_of(request))
    return await _entered(request, response, user, token, body.seats)


@router.get("", response_model=AccountOut, responses=errors(401))
async def whoami(user: SignedIn) -> dict[str, Any]:
    """The signed-in account and its CSRF token."""
    return {"id": user.id, "username": user.username, "csrf": user.csrf}


@router.post("/signout", status_code=204, responses=errors(401, 403))
async def sign_out(user: CheckedUser, request: Request) -> Response:
    """End this session."""
    await accounts_of(request).sign_out(user)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.post("/password", status_code=204, responses=errors(401, 403, 422))
async def change_password(body: PasswordChange, user: CheckedUser, request: Request) -> Response:
    """Change the password; the account's other sessions end."""
    await accounts_of(request).change_password(user, body.current, body.new)
    return Response(status_code=204)


@router.post("/seats", responses=errors(401, 403, 422))
async def claim_seats(body: SeatsBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Make seats this browser holds (by their tokens) the account's."""
    claimed = await request.app.state.players.claim(user, [(s.table, s.token) for s in body.seats])
    return {"claimed": claimed}


@router.post("/delete", status_code=204, responses=errors(401, 403, 422))
async def delete_account(body: PasswordConfirmation, user: CheckedUser, request: Request) -> Response:
    """Delete the account (the password confirms it): its games stay, shown as a deleted player."""
    await request.app.state.players.delete(user, body.password)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.get("/data", responses=errors(401))
async def download_data(user: SignedIn, request: Request) -> JSONResponse:
    """Everything kept about the account, as a JSON file."""
    data = await request.app.state.players.export(user)
    return JSONResponse(data, headers={"Content-Disposition": 'attachment; filename="kseri-account.json"'})
