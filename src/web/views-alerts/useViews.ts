import { useCallback, useEffect, useState } from 'react';
import { type Preset, type View, api } from '../api-client/client.js';

/** The organisation's saved views, preset alerts and view categories, read from the config API. */
export function useViews() {
  const [views, setViews] = useState<View[]>([]);
  const [presets, setPresets] = useState<Preset[]>([]);
  const [categories, setCategories] = useState<string[]>([]);
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async () => {
    const [viewList, presetList, categoryList] = await Promise.all([api.views(), api.presets(), api.categories()]);
    setViews(viewList);
    setPresets(presetList);
    setCategories(categoryList.map((category) => category.name));
  }, []);

  useEffect(() => {
    void reload()
      .then(() => undefined)
      .finally(() => setLoaded(true));
  }, [reload]);

  /** Deletes a view (and its alerts) once the reader confirms; `removed` runs before the list is read again. */
  const remove = useCallback(
    async (view: View, removed: () => void) => {
      if (!window.confirm(`Delete the view “${view.name}” and its alerts?`)) return;
      await api.deleteView(view.viewid);
      removed();
      await reload();
    },
    [reload],
  );

  return { views, presets, categories, loaded, reload, remove };
}
