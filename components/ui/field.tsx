import type { ReactNode } from "react";
import type { FieldError as HookFieldError } from "react-hook-form";

/** A labelled form field with its own error line (ids wired for aria-describedby by the caller via `errorId`). */
export function Field({
  label,
  htmlFor,
  error,
  hint,
  className,
  children,
}: {
  label: ReactNode;
  htmlFor: string;
  error?: HookFieldError | { message?: string };
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <label htmlFor={htmlFor} className="mb-1 block text-sm font-medium text-zinc-700">
        {label}
      </label>
      {children}
      {hint && !error?.message && <p className="mt-1 text-xs text-zinc-500">{hint}</p>}
      <FieldError id={`${htmlFor}-error`} error={error} />
    </div>
  );
}

export function FieldError({ id, error }: { id?: string; error?: { message?: string } }) {
  if (!error?.message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-700">
      {error.message}
    </p>
  );
}
