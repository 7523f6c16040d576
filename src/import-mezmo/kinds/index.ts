import { boards } from './board-kind.js';
import { categories } from './category-kind.js';
import { groups } from './group-kind.js';
import { exclusions, indexRate } from './ingestion-kinds.js';
import { members } from './member-kind.js';
import type { ResourceKind } from './resource-kind.js';
import { presets, views } from './view-kinds.js';

export { IMPORTER, type SourceItem, LocalConfig, type NotCarried, type Applied, type PlanContext, NotCarriedOver, type ResourceKind, canonical, reasonOf, unknownFields } from './resource-kind.js';

/**
 * What the importer carries, in the order it writes: what a later kind refers to comes first
 * (views name categories and presets, boards name categories, members name groups). A new kind is one more entry here.
 */
export const RESOURCE_KINDS: ResourceKind<any>[] = [categories, groups, presets, views, boards, members, exclusions, indexRate];
