"use client";

import type { GameClient } from "@game-backend/client";
import { type FormEvent, useState } from "react";
import { plainError } from "./errors";
import type { Profile } from "./types";
import { GameButton, Notice, Panel, type Status, TextField } from "./ui";

const NAME_MAX = 32;
const PASSWORD_MIN = 8;
const PASSWORD_TOO_SHORT = `Choose a password of at least ${PASSWORD_MIN} characters.`;

/** The six-digit code from a reset or verification e-mail. */
function CodeField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <TextField
      label="Code from the e-mail"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** A password the player chooses (registration, reset). */
function NewPasswordField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <TextField
      label={label}
      type="password"
      autoComplete="new-password"
      required
      hint={`At least ${PASSWORD_MIN} characters.`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

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

/**
 * "Forgot your password?": the server mails a six-digit code (games have no web page to land on);
 * the code and a new password sign the player in and end their other sessions. The request is
 * answered alike for every address, so the form says "if" an account exists.
 */
function ForgotPassword({ game }: { game: GameClient }) {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const request = useAction();
  const confirm = useAction();
  const sendCode = (e: FormEvent) => {
    e.preventDefault();
    void request.run(async () => {
      const to = email.trim();
      await game.auth.requestPasswordReset(to);
      setSentTo(to);
      return `If ${to} has an account with a confirmed address, a code is on its way. It works for 15 minutes.`;
    });
  };
  const setNewPassword = (e: FormEvent) => {
    e.preventDefault();
    if (password.length < PASSWORD_MIN) {
      confirm.setStatus({ tone: "error", text: PASSWORD_TOO_SHORT });
      return;
    }
    void confirm.run(async () => {
      await game.auth.confirmPasswordReset({ email: sentTo ?? email.trim(), code: code.trim(), password });
      return null;
    });
  };
  return (
    <details className="mt-3 text-sm text-indigo-200">
      <summary className="cursor-pointer">Forgot your password?</summary>
      <form onSubmit={sendCode} aria-label="Send a reset code" className="mt-2 space-y-2">
        <TextField label="E-mail" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <GameButton type="submit" variant="secondary" disabled={request.busy}>
          {request.busy ? "Sending…" : sentTo ? "Send a new code" : "E-mail me a code"}
        </GameButton>
        {request.status && <Notice tone={request.status.tone}>{request.status.text}</Notice>}
      </form>
      {sentTo && (
        <form onSubmit={setNewPassword} aria-label="Set a new password" className="mt-3 space-y-2">
          <CodeField value={code} onChange={setCode} />
          <NewPasswordField label="New password" value={password} onChange={setPassword} />
          <GameButton type="submit" disabled={confirm.busy}>
            {confirm.busy ? "Signing in…" : "Set password and sign in"}
          </GameButton>
          {confirm.status && <Notice tone={confirm.status.tone}>{confirm.status.text}</Notice>}
        </form>
      )}
    </details>
  );
}

/** An e-mail account whose address is not confirmed yet: the code from the registration mail, or a new one. */
function VerifyEmail({ game, onProfile }: { game: GameClient; onProfile: (p: Profile) => void }) {
  const [code, setCode] = useState("");
  const verify = useAction();
  const resend = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void verify.run(async () => {
      onProfile(await game.auth.verifyEmail(code.trim()));
      return null;
    });
  };
  return (
    <form
      onSubmit={submit}
      aria-label="Confirm your e-mail"
      className="mt-1 w-full space-y-2 rounded-lg border border-amber-300/30 bg-amber-300/5 p-3"
    >
      <p className="text-xs text-amber-100" data-testid="email-unverified">
        Confirm your e-mail address with the code we sent you: you will need it to reset a forgotten password.
      </p>
      <CodeField value={code} onChange={setCode} />
      <div className="flex flex-wrap gap-2">
        <GameButton type="submit" disabled={verify.busy}>
          {verify.busy ? "Confirming…" : "Confirm e-mail"}
        </GameButton>
        <GameButton
          variant="ghost"
          disabled={resend.busy}
          onClick={() =>
            resend.run(async () => {
              await game.auth.resendVerification();
              return "A new code is on its way; the old one no longer works.";
            })
          }
        >
          {resend.busy ? "Sending…" : "Send a new code"}
        </GameButton>
      </div>
      {verify.status && <Notice tone={verify.status.tone}>{verify.status.text}</Notice>}
      {resend.status && <Notice tone={resend.status.tone}>{resend.status.text}</Notice>}
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
      <ForgotPassword game={game} />
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
    if (password.length < PASSWORD_MIN) {
      upgrade.setStatus({ tone: "error", text: PASSWORD_TOO_SHORT });
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
            {!profile.emailVerified && <VerifyEmail game={game} onProfile={onProfile} />}
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
              <NewPasswordField label="Password" value={password} onChange={setPassword} />
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
