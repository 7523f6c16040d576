import type { Ref } from 'react';

interface Props {
  /** The search box, which "/" focuses. */
  inputRef: Ref<HTMLInputElement>;
  text: string;
  onText: (text: string) => void;
  /** Runs the query as typed. */
  onSearch: () => void;
  /** The query does not parse: the box says so, and points at the message. */
  invalid: boolean;
}

/** The query box and its button. */
export function SearchForm({ inputRef, text, onText, onSearch, invalid }: Props) {
  return (
    <form
      className="search"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch();
      }}
    >
      <input
        ref={inputRef}
        className={`mono ${invalid ? 'invalid' : ''}`}
        value={text}
        onChange={(e) => onText(e.target.value)}
        placeholder='Search, e.g. level:error app:api "timed out"   (press / to focus)'
        aria-label="Search query"
        aria-invalid={invalid}
        aria-describedby="query-error"
        data-testid="query"
      />
      <button type="submit" className="primary">
        Search
      </button>
    </form>
  );
}
