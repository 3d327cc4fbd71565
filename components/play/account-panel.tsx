"use client";

import type { GameClient } from "@game-backend/client";
import { type FormEvent, useState } from "react";
import { plainError } from "./errors";
import type { Profile } from "./types";
import { GameButton, Notice, Panel, type Status, TextField } from "./ui";

const NAME_MAX = 32;

/** Runs one form action with a busy flag and a plain-words outcome. */
function useAction() {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<Status>(null);
  const run = async (work: () => Promise<string | null>) => {
    setBusy(true);
    setStatus(null);
    try {
      const done = await work();
      if (done) setStatus({ tone: "success", text: done });
    } catch (error) {
      setStatus({ tone: "error", text: plainError(error) });
    } finally {
      setBusy(false);
    }
  };
  return { busy, status, setStatus, run };
}

function LoginForm({ game, submitLabel }: { game: GameClient; submitLabel: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void login.run(async () => {
      await game.auth.login({ email: email.trim(), password });
      return null;
    });
  };
  return (
    <form onSubmit={submit} aria-label={submitLabel} className="space-y-2">
      <TextField label="E-mail" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <GameButton type="submit" disabled={login.busy}>
        {login.busy ? "Signing in…" : submitLabel}
      </GameButton>
      {login.status && <Notice tone={login.status.tone}>{login.status.text}</Notice>}
    </form>
  );
}

/** Shown without a session (signed out, or the session ended): sign in, or start over as a guest. */
export function SignedOutPanel({ game, reason }: { game: GameClient; reason: string }) {
  const guest = useAction();
  return (
    <Panel title="Sign in">
      <p className="mb-3 text-sm text-indigo-200">{reason}</p>
      <LoginForm game={game} submitLabel="Sign in" />
      <div className="mt-4 border-t border-white/10 pt-3">
        <GameButton
          variant="secondary"
          disabled={guest.busy}
          onClick={() =>
            guest.run(async () => {
              await game.auth.anonymous();
              return null;
            })
          }
        >
          {guest.busy ? "Starting…" : "Play as a new guest"}
        </GameButton>
        {guest.status && <Notice tone={guest.status.tone}>{guest.status.text}</Notice>}
      </div>
    </Panel>
  );
}

/** The player's name, the guest → e-mail upgrade (same player id, progress kept), and sign-out. */
export function AccountPanel({ game, profile, onProfile }: { game: GameClient; profile: Profile; onProfile: (p: Profile) => void }) {
  const [name, setName] = useState(profile.displayName ?? "");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const rename = useAction();
  const upgrade = useAction();
  const signOut = useAction();

  const saveName = (e: FormEvent) => {
    e.preventDefault();
    const displayName = name.trim();
    if (displayName.length < 1 || displayName.length > NAME_MAX) {
      rename.setStatus({ tone: "error", text: `A name is 1 to ${NAME_MAX} characters.` });
      return;
    }
    void rename.run(async () => {
      onProfile(await game.players.update({ displayName }));
      return "Name saved: the high scores show it.";
    });
  };

  const register = (e: FormEvent) => {
    e.preventDefault();
    if (password.length < 8) {
      upgrade.setStatus({ tone: "error", text: "Choose a password of at least 8 characters." });
      return;
    }
    void upgrade.run(async () => {
      await game.auth.register({ email: email.trim(), password });
      onProfile(await game.players.me());
      setPassword("");
      return "Your progress is now tied to your e-mail: sign in with it on any device.";
    });
  };

  return (
    <Panel title="Your player">
      <p className="mb-3 text-xs text-indigo-200">
        Player id{" "}
        <code data-testid="player-id" className="break-all text-indigo-100">
          {profile.playerId}
        </code>
      </p>
      <form onSubmit={saveName} aria-label="Display name" className="flex items-end gap-2">
        <div className="min-w-0 flex-1">
          <TextField
            label="Display name"
            maxLength={NAME_MAX}
            placeholder="Shown on the high scores"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <GameButton type="submit" variant="secondary" disabled={rename.busy}>
          {rename.busy ? "Saving…" : "Save name"}
        </GameButton>
      </form>
      {rename.status && <Notice tone={rename.status.tone}>{rename.status.text}</Notice>}

      <div className="mt-4 border-t border-white/10 pt-3">
        {profile.hasEmail ? (
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-emerald-200" data-testid="account-kind">
              Signed in with e-mail: your progress is safe.
            </p>
            <GameButton
              variant="secondary"
              disabled={signOut.busy}
              onClick={() =>
                signOut.run(async () => {
                  await game.auth.logout();
                  return null;
                })
              }
            >
              {signOut.busy ? "Signing out…" : "Sign out"}
            </GameButton>
          </div>
        ) : (
          <>
            <h3 className="text-sm font-semibold text-white" data-testid="account-kind">
              Playing as a guest
            </h3>
            <p className="mb-2 text-xs text-indigo-200">
              Add an e-mail to keep your progress, coins and scores if you change device or clear this browser.
            </p>
            <form onSubmit={register} aria-label="Keep your progress with an e-mail" className="space-y-2">
              <TextField
                label="E-mail"
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
              <TextField
                label="Password"
                type="password"
                autoComplete="new-password"
                required
                hint="At least 8 characters."
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <GameButton type="submit" disabled={upgrade.busy}>
                {upgrade.busy ? "Saving…" : "Keep my progress"}
              </GameButton>
            </form>
            <details className="mt-3 text-sm text-indigo-200">
              <summary className="cursor-pointer">Already have an account? Sign in</summary>
              <p className="my-2 text-xs">This guest's progress stays with this guest.</p>
              <LoginForm game={game} submitLabel="Sign in instead" />
            </details>
          </>
        )}
        {upgrade.status && <Notice tone={upgrade.status.tone}>{upgrade.status.text}</Notice>}
        {signOut.status && <Notice tone={signOut.status.tone}>{signOut.status.text}</Notice>}
      </div>
    </Panel>
  );
}
