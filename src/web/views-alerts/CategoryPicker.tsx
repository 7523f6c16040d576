import { withCategory } from './view-body.js';

interface Props {
  chosen: string[];
  /** The organisation's categories, offered as the reader types. */
  known: string[];
  typed: string;
  onTyped: (typed: string) => void;
  onChosen: (names: string[]) => void;
}

/** A view's categories as chips, and a box to add one (Enter; a name typed but not entered joins on save). */
export function CategoryPicker({ chosen, known, typed, onTyped, onChosen }: Props) {
  return (
    // Not a <label>: a click on its text would press the first chip's remove button.
    <div className="field" role="group" aria-label="Categories">
      Categories
      <span className="chips">
        {chosen.map((name) => (
          <span className="chip" key={name} data-testid="view-category-chip">
            {name}
            <button type="button" className="icon" aria-label={`Remove category ${name}`} onClick={() => onChosen(chosen.filter((kept) => kept !== name))}>
              ×
            </button>
          </span>
        ))}
      </span>
      <input
        list="categories"
        value={typed}
        placeholder="Add a category (Enter)"
        aria-label="Add a category"
        data-testid="view-category"
        onChange={(e) => onTyped(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          onChosen(withCategory(chosen, typed));
          onTyped('');
        }}
      />
      <datalist id="categories">
        {known.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
    </div>
  );
}
