/** Why a dialog's answer did not go through (shown under its buttons), or nothing. */
export function DialogError({ error }: { error: string | null | undefined }) {
  return error ? (
    <p className="error small" role="alert">
      {error}
    </p>
  ) : null;
}
