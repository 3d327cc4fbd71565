"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { type ScoreCorrection, ZScoreCorrection } from "@/server/services/leaderboards/board-schemas";
import { applyServerError } from "./errors";
import { checkedWith } from "./form-schema";
import { plainly } from "./plain-issues";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Bounds = { minScore: number | null; maxScore: number | null };
export type ScoreTarget = { playerId: string; displayName: string | null; score: number; rank: number };

const ZFields = z.object({ playerId: z.string(), score: z.string(), reason: z.string() });
type Fields = z.input<typeof ZFields>;

const boundsText = ({ minScore, maxScore }: Bounds) =>
  minScore !== null && maxScore !== null
    ? `from ${minScore.toLocaleString()} to ${maxScore.toLocaleString()}`
    : minScore !== null
      ? `at least ${minScore.toLocaleString()}`
      : maxScore !== null
        ? `at most ${maxScore.toLocaleString()}`
        : "any number";

/** The service's schema (score and reason), the player id when none is chosen, and the board's bounds as the operator reads them. */
function schemaFor(bounds: Bounds) {
  return checkedWith(ZFields, (v) => ({ score: Number(v.score), reason: v.reason }), ZScoreCorrection, {
    check: (v) => {
      const problems: Array<{ path: string[]; message: string }> = [];
      if (!UUID.test(v.playerId.trim())) problems.push({ path: ["playerId"], message: "Enter the player's id (a UUID)." });
      const score = Number(v.score);
      if (v.score.trim() === "" || !Number.isFinite(score)) problems.push({ path: ["score"], message: "Enter a number." });
      else if ((bounds.minScore !== null && score < bounds.minScore) || (bounds.maxScore !== null && score > bounds.maxScore))
        problems.push({ path: ["score"], message: `Scores on this board are ${boundsText(bounds)}.` });
      return problems;
    },
  });
}

/**
 * Sets or corrects one player's score in the current period, with a reason for the audit log.
 * With `target` (a row's "Set score") the player is fixed; without it the operator enters a
 * player id (a player not on the board yet).
 */
export function SetScoreDialog({
  open,
  onOpenChange,
  target,
  bounds,
  onSet,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  target: ScoreTarget | null;
  bounds: Bounds;
  onSet: (value: { playerId: string; score: number; reason: string }) => Promise<unknown>;
}) {
  // The resolver hands over the service's input (score and reason, checked); the player id is the form's own field.
  const form = useForm<Fields, unknown, ScoreCorrection>({
    resolver: zodResolver(schemaFor(bounds), plainly) as never,
    defaultValues: { playerId: "", score: "", reason: "" },
  });
  const { errors, isSubmitting } = form.formState;
  useEffect(() => {
    if (open) form.reset({ playerId: target?.playerId ?? "", score: target ? String(target.score) : "", reason: "" });
  }, [open, target, form]);
  const submit = form.handleSubmit(async (values) => {
    try {
      await onSet({ playerId: form.getValues("playerId").trim(), score: values.score, reason: values.reason });
      onOpenChange(false);
    } catch (error) {
      applyServerError(error, form.setError, ["playerId", "score", "reason"], {
        SCORE_OUT_OF_RANGE: "score",
        PLAYER_NOT_FOUND: "playerId",
      });
    }
  });
  const who = target ? (target.displayName ?? target.playerId) : null;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{who ? `Set ${who}'s score` : "Set a player's score"}</DialogTitle>
          <DialogDescription>
            {target ? `Now ${target.score.toLocaleString()} (#${target.rank}). ` : "For a player of this project, in the current period. "}
            The score replaces the stored one whatever the board's operator; ranks move at once. The reason is kept in the audit log.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={submit} className="grid gap-3">
          {!target && (
            <Field label="Player id" htmlFor="score-player" error={errors.playerId}>
              <Input
                id="score-player"
                className="font-mono"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={errors.playerId ? true : undefined}
                {...form.register("playerId")}
              />
            </Field>
          )}
          <Field label="New score" htmlFor="score-value" error={errors.score} hint={`This board takes ${boundsText(bounds)}.`}>
            <Input
              id="score-value"
              inputMode="decimal"
              autoComplete="off"
              aria-invalid={errors.score ? true : undefined}
              {...form.register("score")}
            />
          </Field>
          <Field label="Reason" htmlFor="score-reason" error={errors.reason} hint="Kept in the audit log with the score before and after.">
            <Input
              id="score-reason"
              placeholder="Support ticket 1042: a lost run restored"
              autoComplete="off"
              aria-invalid={errors.reason ? true : undefined}
              {...form.register("reason")}
            />
          </Field>
          <FieldError error={errors.root?.server} />
          <DialogFooter>
            <Button variant="secondary" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting}>
              Set score
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
