import { useState } from 'preact/hooks';
import { signIn, type Session } from '../session';
import { ErrorBanner, Field } from '../ui/components';

/** The key is pasted, never put in the URL; it stays in this tab's sessionStorage. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [operatorUuid, setOperatorUuid] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(key.trim(), operatorUuid));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Flight clearance console</h1>
      <form onSubmit={(event) => void submit(event)} aria-describedby="sign-in-help">
        <p id="sign-in-help">Paste your API key. It is kept in this browser tab only, until you sign out or close it.</p>
        <ErrorBanner error={error} />
        <Field id="api-key" label="API key" name="key" error={error}>
          {(control) => <input {...control} type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <Field
          id="operator-uuid"
          label="Operator UUID (operator keys only)"
          name="operator_uuid"
          error={error}
          hint="The uuid you received when you registered."
        >
          {(control) => <input {...control} autocomplete="off" value={operatorUuid} onInput={(e) => setOperatorUuid(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
