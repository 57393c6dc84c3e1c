/** The fixed world the generator draws from: characters with aliases, locations, props, bit parts. */

/** A canonical character and the other names its cues use. */
export interface CastMember {
  name: string
  aliases: string[]
}

/** The canonical characters, as `characters.md` lists them. */
export const CAST: readonly CastMember[] = [
  { name: 'MARA VOSS', aliases: ['THE STRANGER', 'MARA'] },
  { name: 'JONAS REED', aliases: ['JONAS'] },
  { name: 'ELENA MORROW', aliases: ['DR. MORROW', 'ELENA'] },
  { name: 'TOBIAS KANE', aliases: ['THE HARBOURMASTER', 'TOBIAS'] },
  { name: 'ISOLDE FENN', aliases: ['ISOLDE'] },
  { name: 'CAPTAIN ABEL DRAY', aliases: ['DRAY', 'THE CAPTAIN'] },
  { name: 'NELL ASHBY', aliases: ['NELL'] },
  { name: 'FATHER CORIN', aliases: ['CORIN'] },
  { name: 'RUTH OKAFOR', aliases: ['RUTH', 'OKAFOR'] },
  { name: 'SILAS MARLOWE', aliases: ['SILAS', 'THE BROKER'] },
  { name: 'WREN HOLLOWAY', aliases: ['WREN'] },
  { name: 'AUGUST PELL', aliases: ['PELL', 'MR. PELL'] },
]

/** Cues of minor parts that are deliberately not in `characters.md`: validation must report them. */
export const BIT_PARTS: readonly string[] = ['DOCKHAND', 'CUSTOMS OFFICER', 'BARMAID', 'FERRYMAN', 'GULL-BOY']

/** Locations, each always interior or always exterior. */
export const LOCATIONS: ReadonlyArray<{ name: string; int: boolean }> = [
  { name: 'LIGHTHOUSE', int: true },
  { name: 'HARBOUR', int: false },
  { name: "HARBOURMASTER'S OFFICE", int: true },
  { name: 'CLIFF PATH', int: false },
  { name: 'THE DROWNED BELL TAVERN', int: true },
  { name: 'MORROW CLINIC', int: true },
  { name: 'FISH MARKET', int: false },
  { name: 'CHAPEL OF ST. BRENDAN', int: true },
  { name: 'DRAY\'S SHIP - DECK', int: false },
  { name: 'CUSTOMS HOUSE', int: true },
  { name: 'SALT FLATS', int: false },
  { name: 'BOARDING HOUSE - ATTIC', int: true },
  { name: 'BREAKWATER', int: false },
  { name: 'PELL ESTATE - LIBRARY', int: true },
]

/** Props; action lines write them in capitals. */
export const PROPS: readonly string[] = [
  'LANTERN', 'ROWBOAT', 'BRASS KEY', 'LEDGER', 'PISTOL', 'TIDE TABLE', 'TELEGRAM', 'COMPASS', 'OILSKIN COAT', 'BELL ROPE',
  'SEALED LETTER', 'SPYGLASS', 'MEDICINE CASE', 'SILVER LOCKET', 'FISHING NET', 'CHART', 'MATCHBOX', 'ROSARY',
]

/** Words for episode titles. */
export const TITLE_WORDS = {
  first: ['The', 'A', 'Low', 'Last', 'Salt', 'Quiet', 'Broken', 'Second', 'Drowned', 'Long'],
  second: ['Stranger', 'Tide', 'Light', 'Ledger', 'Bell', 'Crossing', 'Harbour', 'Reckoning', 'Signal', 'Debt', 'Storm', 'Return'],
}

/** Dialogue lines (no capitals-only words, so no line can be mistaken for a cue or a prop). */
export const DIALOGUE: readonly string[] = [
  'Nobody keeps this light anymore.', 'Somebody has to.', 'He never asked my name.', 'The tide turns at four.',
  'You owe more than money, you know that.', 'Keep your voice down.', 'I saw the ship come in without lights.',
  'Then we wait for morning.', 'That is not what the ledger says.', 'Who told you?', 'We should not be here.',
  'Ask the harbour, it remembers everything.', 'I will not lie for you again.', 'Bring the boat round.',
  'Someone rang the bell last night.', 'You look like your mother.', 'It was never about the cargo.',
  'Go home, the storm is coming.', 'I know what you did.', 'Say that again.',
]

/** Action sentence templates: `{C}` is a character (in capitals), `{P}` a prop. No other word is in capitals. */
export const ACTIONS: readonly string[] = [
  'Rain hammers the glass. The {P} swings on its hook.', '{C} drags a {P} onto the shingle.', '{C} turns the {P} over in both hands.',
  'Wind. Somewhere a door bangs. {C} pockets the {P}.', '{C} sets the {P} on the table and waits.', 'Fog rolls in. The {P} is gone.',
  '{C} studies the {P} by candlelight.', 'Gulls scream. {C} hides the {P} under a coat.',
]
