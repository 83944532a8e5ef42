import { render } from 'preact';
import { useState } from 'preact/hooks';
import { loadSession, saveSession, type Session } from './session';
import { navigate, usePath } from './router';
import { Shell } from './ui/shell';
import { SignIn } from './screens/sign-in';
import { screenFor } from './screens/routes';
import './styles.css';

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const path = usePath();
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          saveSession(signedIn);
          setSession(signedIn);
          navigate('/');
        }}
      />
    );
  }
  const signOut = () => {
    saveSession(null);
    setSession(null);
    navigate('/');
  };
  return (
    <Shell session={session} onSignOut={signOut}>
      {screenFor(session, path)}
    </Shell>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
