/**
 * Renderer entry: picks the transport (desktop IPC when the preload exposed `window.api`, the
 * web console's cookie fetch otherwise), then mounts the app. The same bundle runs in Electron
 * and, served by the engine at `/`, in any browser.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/tokens.css';
import './styles/app.css';
import { createTransport, setTransport } from './transport';
import { useUi } from './stores/ui';
import { useAuth } from './stores/auth';
import { App } from './app';

setTransport(
  createTransport({
    projectId: () => useUi.getState().projectId,
    onUnauthorized: () => useAuth.getState().expired(),
  }),
);

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
