/**
 * Renderer entry: mounts the operator UI. The same bundle runs inside Electron and, served by
 * the engine at `/`, in any browser; it talks to an engine only through src/shared contracts.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

function App(): React.JSX.Element {
  return <h1>Browserdeck</h1>;
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode><App /></StrictMode>);
