/** A purchase step's refusal of the form the browser posted (without JavaScript), next to its button. */
export function FormRefusalNote({ title = "Error", message }: { title?: string; message: string }) {
  return (
    <div
      role="alert"
      data-testid="form-refusal"
      className="rounded-md border border-destructive/40 bg-destructive/5 px-4 py-3 text-sm text-destructive"
    >
      <p className="font-semibold">{title}</p>
      <p>{message}</p>
    </div>
  );
}
