"""English glosses of the characters the model lab's next-character tables show most: the
model's likeliest guesses over the validation text and after each character of the sample poem
(typed tab, step 5 of the model lesson), its most frequent characters, and the marks it reads.
A projected English audience reads 鄉 as "xiāng home"; a character the table does not know is
shown alone (Chinese never shows a gloss). Pinyin in the reading these poems mostly use."""
from __future__ import annotations

from app import i18n

MARKS = {
    "\n": "line break", "�": "unknown character", "，": "comma", "。": "full stop", "？": "question mark",
    "；": "semicolon", "（": "opening bracket", "）": "closing bracket", "]": "closing bracket",
    "《": "opening title mark", "》": "closing title mark", "「": "opening quote", "」": "closing quote",
    "○": "a lost character",
}

# character: "pinyin meaning"
CHARACTERS = {
    "不": "bù not", "一": "yī one", "人": "rén person", "春": "chūn spring", "月": "yuè moon",
    "無": "wú without", "處": "chù place", "看": "kàn look", "夜": "yè night", "上": "shàng up, on",
    "雲": "yún cloud", "是": "shì is", "向": "xiàng toward", "水": "shuǐ water", "江": "jiāng river",
    "山": "shān mountain", "鏡": "jìng mirror", "日": "rì sun, day", "主": "zhǔ lord", "光": "guāng light",
    "鄉": "xiāng home", "君": "jūn you (polite)", "歸": "guī return", "金": "jīn gold", "秋": "qiū autumn",
    "見": "jiàn see", "入": "rù enter", "頭": "tóu head", "如": "rú like", "在": "zài at",
    "竹": "zhú bamboo", "自": "zì self", "下": "xià down", "天": "tiān sky", "題": "tí inscribe",
    "酒": "jiǔ wine", "有": "yǒu have", "色": "sè colour", "中": "zhōng middle", "清": "qīng clear",
    "坐": "zuò sit", "葉": "yè leaf", "翠": "cuì jade green", "發": "fā set out", "滿": "mǎn full",
    "照": "zhào shine", "初": "chū first", "明": "míng bright", "獨": "dú alone", "高": "gāo high",
    "此": "cǐ this", "舊": "jiù old", "風": "fēng wind", "塵": "chén dust", "目": "mù eye",
    "地": "dì ground", "世": "shì world", "應": "yīng should", "欲": "yù wish", "對": "duì facing",
    "首": "shǒu head; poem", "面": "miàn face", "到": "dào arrive", "斷": "duàn break", "苦": "kǔ bitter",
    "未": "wèi not yet", "花": "huā flower", "情": "qíng feeling", "年": "nián year", "何": "hé what, how",
    "大": "dà big", "贈": "zèng give", "去": "qù go", "來": "lái come", "愁": "chóu sorrow",
    "盡": "jìn end", "十": "shí ten", "門": "mén gate", "識": "shí know", "家": "jiā home, family",
    "道": "dào way", "得": "dé get", "亦": "yì also", "思": "sī think", "逢": "féng meet",
    "尋": "xún seek", "親": "qīn kin", "隨": "suí follow", "玉": "yù jade", "寄": "jì send to",
    "懷": "huái longing", "感": "gǎn feel", "路": "lù road", "程": "chéng journey", "出": "chū go out",
    "過": "guò pass", "馬": "mǎ horse", "戰": "zhàn battle", "虜": "lǔ enemy", "棲": "qī perch",
    "幽": "yōu secluded", "行": "xíng go, walk", "輕": "qīng light", "易": "yì easy", "辱": "rǔ disgrace",
    "化": "huà change", "華": "huá splendour", "蘋": "píng duckweed", "煙": "yān mist", "波": "bō wave",
    "兮": "xī ah (poetic)", "興": "xīng rise", "別": "bié parting", "龍": "lóng dragon", "魚": "yú fish",
    "職": "zhí duty", "用": "yòng use", "柳": "liǔ willow", "雪": "xuě snow", "聞": "wén hear",
    "相": "xiāng each other", "知": "zhī know", "前": "qián before", "樹": "shù tree", "谷": "gǔ valley",
    "草": "cǎo grass", "生": "shēng life", "成": "chéng become", "子": "zǐ son", "笑": "xiào laugh",
    "似": "sì resemble", "帳": "zhàng tent", "署": "shǔ office", "壁": "bì wall", "王": "wáng king",
    "李": "lǐ Li (name)", "崔": "cuī Cui (name)", "雨": "yǔ rain", "芳": "fāng fragrant", "新": "xīn new",
    "三": "sān three", "二": "èr two", "六": "liù six", "作": "zuò write", "海": "hǎi sea",
    "畔": "pàn bank", "東": "dōng east", "長": "cháng long", "句": "jù line", "詩": "shī poem",
    "西": "xī west", "南": "nán south", "府": "fǔ mansion", "爲": "wéi be; for", "心": "xīn heart",
    "時": "shí time", "白": "bái white", "事": "shì matter", "歌": "gē song", "五": "wǔ five",
    "送": "sòng see off", "落": "luò fall", "我": "wǒ I", "四": "sì four", "千": "qiān thousand",
    "城": "chéng city", "重": "chóng again", "同": "tóng together", "公": "gōng duke", "和": "hé and",
    "石": "shí stone", "客": "kè traveller", "朝": "cháo court", "卷": "juàn scroll", "州": "zhōu prefecture",
    "寒": "hán cold", "流": "liú flow", "空": "kōng empty", "還": "huán return", "望": "wàng gaze",
    "陽": "yáng sun", "青": "qīng blue-green", "書": "shū letter", "開": "kāi open", "今": "jīn now",
    "多": "duō many", "古": "gǔ ancient", "將": "jiāng will; take", "故": "gù old", "菲": "fēi fragrant",
    "豈": "qǐ how could", "靜": "jìng quiet", "床": "chuáng bed", "疑": "yí suspect", "霜": "shuāng frost",
    "舉": "jǔ raise", "低": "dī lower", "七": "qī seven", "八": "bā eight", "九": "jiǔ nine",
    "萬": "wàn ten thousand", "百": "bǎi hundred", "聲": "shēng sound", "名": "míng name", "飛": "fēi fly",
    "深": "shēn deep", "遠": "yuǎn far", "樓": "lóu tower", "晚": "wǎn evening", "誰": "shuí who",
    "後": "hòu after", "與": "yǔ and", "已": "yǐ already", "香": "xiāng fragrance", "林": "lín forest",
    "遊": "yóu roam", "身": "shēn body", "宮": "gōng palace", "里": "lǐ village; mile", "黃": "huáng yellow",
    "紅": "hóng red", "北": "běi north", "池": "chí pond", "松": "sōng pine", "歲": "suì year (age)",
}


def char_gloss(ch: str) -> str:
    """The character's pinyin and meaning (or a mark's name) in English mode, "" in Chinese or
    for a character the table does not know."""
    if i18n.language() != "en":
        return ""
    return MARKS.get(ch) or CHARACTERS.get(ch, "")
