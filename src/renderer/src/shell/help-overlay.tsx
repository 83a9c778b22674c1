/** `?`: the keyboard shortcut table. */
import { Dialog } from '../components/dialog';
import { useUi } from '../stores/ui';
import { SHORTCUTS } from './shortcuts';

export function HelpOverlay(): React.JSX.Element | null {
  const { helpOpen, setHelpOpen } = useUi();
  return (
    <Dialog open={helpOpen} title="Keyboard shortcuts" onClose={() => setHelpOpen(false)}>
      <table className="table shortcuts">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <td>
                {s.keys.split(' ').map((k) => (
                  <kbd key={k}>{k}</kbd>
                ))}
              </td>
              <td>{s.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
